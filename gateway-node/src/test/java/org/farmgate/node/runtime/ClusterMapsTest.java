package org.farmgate.node.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every map is declared once, in {@link ClusterMaps}, and every declared map is one Hazelcast is configured for,
 * with the merge policy that keeps a split's small side from bringing removed records back: a map added without it
 * is what this catches.
 */
class ClusterMapsTest {

    @Test
    void everyDeclaredMapIsConfiguredAndNoneTwice() throws Exception {
        List<ClusterMaps.ClusterMap<?>> declared = new ArrayList<>();
        for (Field field : ClusterMaps.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == ClusterMaps.ClusterMap.class) {
                declared.add((ClusterMaps.ClusterMap<?>) field.get(null));
            }
        }
        assertEquals(declared.size(), ClusterMaps.ALL.size(), "a declared map missing from ALL");
        assertEquals(declared.stream().map(ClusterMaps.ClusterMap::name).distinct().count(), declared.size(),
                "two declarations of one name");
        for (ClusterMaps.ClusterMap<?> map : declared) {
            assertEquals(com.hazelcast.spi.merge.DiscardMergePolicy.class.getName(),
                    map.config(null).getMergePolicyConfig().getPolicy(), map.name());
            assertEquals(true, ClusterMaps.ALL.contains(map), map.name());
        }
    }
}
