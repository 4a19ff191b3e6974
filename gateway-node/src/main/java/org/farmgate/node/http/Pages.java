package org.farmgate.node.http;

import io.vertx.ext.web.RoutingContext;

/**
 * A plain page for a person rather than an API caller (a sign-in that went wrong, a link that cannot be opened): what
 * happened in words, and a way on. Every text is escaped: much of it names what the request carried.
 */
public final class Pages {

    private Pages() {
    }

    public static void show(RoutingContext ctx, int status, String title, String text) {
        show(ctx, status, title, text, "<a href=\"/auth/login\">Sign in again</a> · <a href=\"/\">Back to the start</a>");
    }

    /** A page whose way on is {@code links}, already HTML (the caller escapes what it puts there). */
    public static void show(RoutingContext ctx, int status, String title, String text, String links) {
        String html = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + escape(title)
                + "</title><link rel=\"stylesheet\" href=\"/app.css\"></head><body><header><h1>farmgate</h1></header>"
                + "<main><h2 id=\"problem\">" + escape(title) + "</h2><p id=\"detail\">" + escape(text)
                + "</p><p>" + links + "</p></main></body></html>";
        ctx.response().setStatusCode(status).putHeader("Content-Type", "text/html; charset=utf-8")
                .putHeader("Cache-Control", "no-store").end(html);
    }

    public static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (char c : text.toCharArray()) {
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
