package org.farmgate.bench;

import java.util.Collection;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * Options that name things from a fixed list (phases, security modes): a misspelt name is refused with the list,
 * instead of quietly running nothing.
 */
public final class Choices {

    private Choices() {
    }

    public static void require(CommandSpec spec, String option, Collection<String> given, List<String> allowed) {
        for (String value : given) {
            if (!allowed.contains(value)) {
                throw new ParameterException(spec.commandLine(), option + " takes " + String.join(", ", allowed)
                        + ", not '" + value + "'");
            }
        }
        if (given.isEmpty()) {
            throw new ParameterException(spec.commandLine(), option + " needs one of " + String.join(", ", allowed));
        }
    }
}
