package org.farmgate.node.signin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Where a sign-in may send the person afterwards: a path of this site, never another site (no open redirect). */
class LocalPathTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(nullValues = "-", textBlock = """
            /,                          /
            /admin.html,                /admin.html
            /#connect=abc,              /#connect=abc
            -,                          /
            https://evil.example/,      /
            //evil.example/,            /
            /\\evil.example,            /
            admin.html,                 /
            '/a b',                     /
            """)
    void onlyPathsOfThisSite(String asked, String expected) {
        assertEquals(expected, OidcSignIn.localPath(asked));
    }
}
