package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import org.farmgate.model.SessionInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** rustguac's quick connect: a link opens a console; a bad or hostile link gets a page that says what is wrong. */
class QuickConnectTest {

    private static TestNode node;

    @BeforeAll
    static void start() throws Exception {
        node = TestNode.start();
    }

    @AfterAll
    static void stop() throws Exception {
        node.close();
    }

    @Test
    void aLinkMakesTheSessionAndOpensItInTheClientPage() throws Exception {
        HttpResponse<String> opened = node.request("GET", "/api/connect?protocol=ssh&hostname=127.0.0.1&port=22"
                + "&username=ops&width=1280&height=720", TestNode.ADMIN, null);
        assertEquals(307, opened.statusCode(), opened::body);
        String location = opened.headers().firstValue("Location").orElseThrow();
        assertTrue(location.startsWith("/client/"), location);
        String id = location.substring("/client/".length());
        SessionInfo session = node.session(id);
        assertEquals("127.0.0.1", session.hostname());
        assertEquals("admin", session.createdBy());
        HttpResponse<String> client = node.request("GET", location, null, null);
        assertEquals(302, client.statusCode());
        assertEquals("/#connect=" + id, client.headers().firstValue("Location").orElseThrow());
        org.awaitility.Awaitility.await("the link's session in the audit log").atMost(java.time.Duration.ofSeconds(10))
                .until(() -> node.request("GET", "/api/audit?action=session.create&target=" + id, TestNode.ADMIN,
                        null).body().contains(id));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            hostname=127.0.0.1&password=secret                 | 400 | credentials never travel in a link
            hostname=127.0.0.1&key=gwt_abc                      | 400 | query parameter 'key' is refused
            hostname=127.0.0.1&foo=1                            | 400 | unknown query parameter 'foo'
            hostname=127.0.0.1&port=abc                         | 400 | query parameter 'port' must be a number
            hostname=127.0.0.1&port=22&port=23                  | 400 | 'port' is given more than once
            username=ops                                        | 400 | query parameter 'hostname' is required
            protocol=telnet&hostname=127.0.0.1                  | 400 | session_type
            hostname=192.0.2.1                                  | 400 | outside the networks allowed for ssh
            hostname=%3Cscript%3Ealert(1)%3C%2Fscript%3E         | 400 | &lt;script&gt;
            scope=shared&folder=lab&entry=web-1                 | 404 | this gateway has no address book
            """)
    void aBadLinkGetsAPageThatSaysWhatIsWrong(String query, int status, String says) throws Exception {
        HttpResponse<String> answer = node.request("GET", "/api/connect?" + query, TestNode.ADMIN, null);
        assertEquals(status, answer.statusCode(), answer::body);
        assertTrue(answer.headers().firstValue("Content-Type").orElse("").startsWith("text/html"), "a page");
        assertTrue(answer.body().replace("&#39;", "'").contains(says), answer::body);
        assertTrue(!answer.body().contains("<script>"), "what the link carried is escaped");
    }

    @Test
    void theRolesAndTheSignInAreChecked() throws Exception {
        String viewer = node.createToken("quick-viewer", "viewer");
        HttpResponse<String> refused = node.request("GET", "/api/connect?hostname=127.0.0.1", viewer, null);
        assertEquals(403, refused.statusCode());
        assertTrue(refused.body().contains("needs the poweruser role"), refused::body);
        HttpResponse<String> nobody = node.request("GET", "/api/connect?hostname=127.0.0.1", null, null);
        assertEquals(401, nobody.statusCode(), "no sign-in on this node: nowhere to send the person");
        assertTrue(nobody.body().contains("missing credentials"), nobody::body);
        assertEquals(404, node.request("GET", "/client/..%2Fadmin", null, null).statusCode());
    }
}
