package org.farmgate.bench.load;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * The Guacamole load client: {@code java -cp bench/target/farmgate-bench.jar org.farmgate.bench.load.LoadClientMain
 * --base-url URL[,URL...] --token T [--protocol ssh|rdp|vnc] [--target-host H --target-port P --target-user U
 * --target-password P] [--sessions N] [--ramp-secs S] [--hold-secs S] [--mouse-hz N] [--keys-hz N] [--ping-hz N]
 * [--grace-secs S] [--csv FILE] [--json FILE]}. Exits 1 when any session failed.
 */
@Command(name = "load-client", mixinStandardHelpOptions = true, description = "The Guacamole load client.")
public final class LoadClientMain implements Callable<Integer> {

    @Spec
    private CommandSpec spec;
    @Mixin
    private LoadOptions.Flags flags;

    public static void main(String[] args) {
        System.exit(new CommandLine(new LoadClientMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        LoadOptions options;
        try {
            options = flags.options();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        LoadReport report = LoadRun.run(options, System.out);
        report.print(System.out);
        if (options.csv() != null) {
            report.writeCsv(Path.of(options.csv()));
        }
        if (options.json() != null) {
            report.writeJson(Path.of(options.json()));
        }
        return report.failures() == 0 ? 0 : 1;
    }
}
