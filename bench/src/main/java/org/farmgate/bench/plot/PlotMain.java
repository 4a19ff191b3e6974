package org.farmgate.bench.plot;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import org.farmgate.bench.Csv;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * Draws a CSV the bench tools wrote: {@code java -cp bench/target/farmgate-bench.jar org.farmgate.bench.plot.PlotMain
 * --csv FILE --x COLUMN --y COLUMN[,COLUMN...] [--series COLUMN] [--title T] [--xlabel L] [--ylabel L] --out FILE.png}.
 * One line per y column, or per value of the series column (memory per node over time: {@code --x time_s --y pss_mb
 * --series label}).
 */
@Command(name = "plot", mixinStandardHelpOptions = true, description = "Draws a CSV the bench tools wrote as a PNG.")
public final class PlotMain implements Callable<Integer> {

    @Option(names = "--csv", required = true, description = "the CSV, with a header row")
    private Path csv;
    @Option(names = "--x", required = true, description = "the x column")
    private String x;
    @Option(names = "--y", required = true, split = ",", description = "the y columns, a line each")
    private List<String> ys;
    @Option(names = "--series", description = "a column each of whose values is a line of its own")
    private String seriesColumn;
    @Option(names = "--title", description = "default: the y columns by the x column")
    private String title;
    @Option(names = "--xlabel", description = "default: the x column")
    private String xLabel;
    @Option(names = "--ylabel", description = "default: the y columns")
    private String yLabel;
    @Option(names = "--out", required = true, description = "the PNG to write")
    private Path out;

    public static void main(String[] args) {
        System.exit(new CommandLine(new PlotMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Map<String, List<double[]>> series = new LinkedHashMap<>();
        try (CSVParser rows = Csv.read(csv)) {
            for (CSVRecord row : rows) {
                for (String y : ys) {
                    String name = seriesColumn == null ? y : row.get(seriesColumn) + (ys.size() > 1 ? " " + y : "");
                    series.computeIfAbsent(name, k -> new ArrayList<>()).add(new double[] {
                        Double.parseDouble(row.get(x)), Double.parseDouble(row.get(y))});
                }
            }
        }
        String yNames = String.join(", ", ys);
        LineChart chart = new LineChart(title != null ? title : yNames + " by " + x, xLabel != null ? xLabel : x,
                yLabel != null ? yLabel : yNames);
        series.forEach((name, points) -> {
            points.sort((a, b) -> Double.compare(a[0], b[0]));
            chart.add(new LineChart.Series(name, points));
        });
        chart.write(out);
        System.out.println("wrote " + out);
        return 0;
    }
}
