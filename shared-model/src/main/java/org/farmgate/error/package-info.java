/**
 * The gateway's one error hierarchy: {@link org.farmgate.error.GatewayException} carries a Guacamole status, and
 * each subclass stands for one status. Only the edges (HTTP API, WebSocket tunnel, node-to-node messenger) turn a
 * status into their wire's form.
 */
package org.farmgate.error;
