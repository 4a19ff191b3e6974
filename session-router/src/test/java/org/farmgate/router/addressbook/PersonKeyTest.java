package org.farmgate.router.addressbook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** A person's place in Vault is rustguac's, and no address can name another place. */
class PersonKeyTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"alice@farm.example, alice_at_farm.example", "A.B-c_d@x.io, A.B-c_d_at_x.io",
        "../../shared/x@y, ....sharedx_at_y", "ann/../bob@z, ann..bob_at_z", "é@x, _at_x"})
    void theAddressIsSanitisedAsRustguacDoes(String email, String key) {
        assertEquals(key, VaultSource.personKey(email));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "..", "/", "é"})
    void anAddressLeavingNoKeyIsRefused(String email) {
        assertThrows(IllegalArgumentException.class, () -> VaultSource.personKey(email));
    }
}
