package org.farmgate.bench.load;

import java.nio.file.Path;
import java.util.Map;
import org.farmgate.bench.Args;

/**
 * The Guacamole load client: {@code java -cp bench/target/farmgate-bench.jar org.farmgate.bench.load.LoadClientMain
 * --base-url URL[,URL...] --token T [--protocol ssh|rdp|vnc] [--target-host H --target-port P --target-user U
 * --target-password P] [--sessions N] [--ramp-secs S] [--hold-secs S] [--mouse-hz N] [--keys-hz N] [--ping-hz N]
 * [--grace-secs S] [--csv FILE] [--json FILE]}. Exits 1 when any session failed.
 */
public final class LoadClientMain {

    private LoadClientMain() {
    }

    public static void main(String[] args) throws Exception {
        LoadOptions options;
        try {
            options = LoadOptions.parse(Args.parse(args));
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        LoadReport report = LoadRun.run(options, System.out);
        report.print(System.out);
        if (options.csv() != null) {
            report.writeCsv(Path.of(options.csv()));
        }
        if (options.json() != null) {
            report.writeJson(Path.of(options.json()));
        }
        System.exit(report.failures() == 0 ? 0 : 1);
    }
}
