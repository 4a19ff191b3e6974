package org.farmgate.bench.plot;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.farmgate.bench.Args;

/**
 * Draws a CSV the bench tools wrote: {@code java -cp bench/target/farmgate-bench.jar org.farmgate.bench.plot.PlotMain
 * --csv FILE --x COLUMN --y COLUMN[,COLUMN...] [--series COLUMN] [--title T] [--xlabel L] [--ylabel L] --out FILE.png}.
 * One line per y column, or per value of the series column (memory per node over time: {@code --x time_s --y pss_mb
 * --series label}).
 */
public final class PlotMain {

    private PlotMain() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> o = Args.parse(args);
        for (String required : List.of("csv", "x", "y", "out")) {
            if (!o.containsKey(required)) {
                System.err.println("--" + required + " is required");
                System.exit(2);
            }
        }
        List<String> lines = Files.readAllLines(Path.of(o.get("csv")));
        List<String> header = Arrays.asList(lines.get(0).split(","));
        int x = column(header, o.get("x"));
        int seriesColumn = o.containsKey("series") ? column(header, o.get("series")) : -1;
        String[] ys = o.get("y").split(",");
        Map<String, List<double[]>> series = new LinkedHashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] cells = line.split(",", -1);
            for (String y : ys) {
                String name = seriesColumn >= 0 ? cells[seriesColumn] + (ys.length > 1 ? " " + y : "") : y;
                series.computeIfAbsent(name, k -> new ArrayList<>()).add(new double[] {
                    Double.parseDouble(cells[x]), Double.parseDouble(cells[column(header, y)])});
            }
        }
        LineChart chart = new LineChart(o.getOrDefault("title", String.join(", ", ys) + " by " + o.get("x")),
                o.getOrDefault("xlabel", o.get("x")), o.getOrDefault("ylabel", String.join(", ", ys)));
        series.forEach((name, points) -> {
            points.sort((a, b) -> Double.compare(a[0], b[0]));
            chart.add(new LineChart.Series(name, points));
        });
        chart.write(Path.of(o.get("out")));
        System.out.println("wrote " + o.get("out"));
    }

    private static int column(List<String> header, String name) {
        int index = header.indexOf(name);
        if (index < 0) {
            throw new IllegalArgumentException("no column '" + name + "' in " + header);
        }
        return index;
    }
}
