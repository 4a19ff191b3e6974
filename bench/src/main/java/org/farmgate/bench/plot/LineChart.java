package org.farmgate.bench.plot;

import java.awt.Color;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;

/** A line chart as a PNG, drawn headless by XChart: one line per series, a legend. */
public final class LineChart {

    /** Fixed, so that a path keeps its colour from one chart of a report to the next. */
    private static final Color[] PALETTE = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
        new Color(0xff7f0e), new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x17becf)};

    /** A series' points, in x order. */
    public record Series(String name, List<double[]> points) {
    }

    private final XYChart chart;

    public LineChart(String title, String xLabel, String yLabel) {
        System.setProperty("java.awt.headless", "true"); // before XChart's first use of AWT; no display needed
        chart = new XYChartBuilder().width(900).height(520).title(title).xAxisTitle(xLabel).yAxisTitle(yLabel).build();
        chart.getStyler().setSeriesColors(PALETTE);
    }

    /** An empty series is left out: it has nothing to draw, and XChart refuses it. */
    public LineChart add(Series s) {
        if (!s.points().isEmpty()) {
            chart.addSeries(s.name(), s.points().stream().mapToDouble(p -> p[0]).toArray(),
                    s.points().stream().mapToDouble(p -> p[1]).toArray());
        }
        return this;
    }

    public void write(Path png) throws IOException {
        if (chart.getSeriesMap().isEmpty()) {
            throw new IllegalArgumentException("nothing to plot: every series is empty");
        }
        // From zero unless a value is below it: an axis that starts just under the data exaggerates differences.
        chart.getStyler().setYAxisMin(Math.min(0, chart.getSeriesMap().values().stream()
                .mapToDouble(XYSeries::getYMin).min().orElseThrow()));
        // Into a stream rather than by name: saveBitmap(chart, String, ...) would add ".png" to any other name.
        try (OutputStream out = Files.newOutputStream(png)) {
            BitmapEncoder.saveBitmap(chart, out, BitmapEncoder.BitmapFormat.PNG);
        }
    }
}
