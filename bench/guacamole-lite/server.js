// guacamole-lite (the Node.js Guacamole gateway, from the npm registry) in front of one guacd: the peer relay the
// gateway is measured against. Installed by bench/scripts/guacamole-lite.sh; started by the relay benchmark.
// Usage: node server.js WS_PORT GUACD_PORT KEY   (KEY: 32 characters, AES-256-CBC, as guacamole-lite expects)
'use strict';
const GuacamoleLite = require('guacamole-lite');

const [wsPort, guacdPort, key] = process.argv.slice(2);
if (!wsPort || !guacdPort || !key || key.length !== 32) {
    console.error('usage: node server.js WS_PORT GUACD_PORT KEY(32 characters)');
    process.exit(2);
}
new GuacamoleLite(
    {host: '127.0.0.1', port: Number(wsPort)},
    {host: '127.0.0.1', port: Number(guacdPort)},
    {crypt: {cypher: 'AES-256-CBC', key: key}, log: {level: 'ERRORS'}});
console.log('guacamole-lite listening on 127.0.0.1:' + wsPort);
