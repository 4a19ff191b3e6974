package org.farmgate.node.signin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.farmgate.model.Role;
import org.farmgate.node.config.ConfigSource;
import org.farmgate.node.config.OidcSettings;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The rules that turn what a provider says of a person into a role, one row per case. */
class RoleMappingTest {

    @ParameterizedTest(name = "{0} / {1} / max {2} -> {3}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            {"groups":["farm-operators"]}                       | -         | admin    | operator
            {"groups":["farm-operators","farm-admins"]}         | -         | admin    | admin
            {"groups":["farm-admins"]}                          | -         | operator | operator
            {"groups":["contractors"]}                          | -         | admin    | -
            {}                                                  | -         | admin    | -
            {"groups":"farm-operators"}                         | -         | admin    | operator
            {"groups":[1, {"x":1}, "farm-operators"]}          | -         | admin    | operator
            {"roles":["poweruser"],"groups":["farm-operators"]} | roles     | admin    | poweruser
            {"roles":"superuser"}                               | roles     | admin    | -
            {"roles":["admin"]}                                 | roles     | viewer   | viewer
            {"roles":["viewer"],"groups":["farm-admins"]}       | roles     | admin    | admin
            {"groups":["farm-auditors"]}                        | -         | admin    | auditor
            {"groups":["farm-auditors","farm-operators"]}       | -         | admin    | operator
            {"groups":["farm-operators","farm-auditors"]}       | -         | admin    | operator
            {"groups":["farm-auditors"]}                        | -         | viewer   | viewer
            {"roles":["auditor"],"groups":["contractors"]}      | roles     | admin    | auditor
            """)
    void aPersonGetsTheHighestMatchingRoleCappedByTheMaximum(String claims, String roleClaim, String max,
            String expected) {
        Map<String, String> env = new HashMap<>(Map.of("GW_OIDC_ISSUER", "https://id.example/realms/x",
                "GW_OIDC_CLIENT_ID", "farmgate", "GW_OIDC_REDIRECT_BASE", "https://gw.example",
                "GW_OIDC_ROLE_MAPPINGS", "farm-admins=admin, farm-operators=operator, farm-auditors=auditor",
                "GW_OIDC_MAX_ROLE", max));
        if (roleClaim != null) {
            env.put("GW_OIDC_ROLE_CLAIM", roleClaim);
        }
        RoleMapping mapping = new RoleMapping(OidcSettings.from(new ConfigSource(env)));
        assertEquals(Optional.ofNullable(expected).map(Role::parse), mapping.roleOf(new JsonObject(claims)));
    }
}
