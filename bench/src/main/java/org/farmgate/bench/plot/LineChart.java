package org.farmgate.bench.plot;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;

/** A line chart as a PNG, drawn with the JDK alone (headless): axes with round ticks, one line per series, a legend. */
public final class LineChart {

    private static final Color[] PALETTE = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
        new Color(0xff7f0e), new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x17becf)};
    private static final int WIDTH = 900;
    private static final int HEIGHT = 520;
    private static final int LEFT = 80;
    private static final int RIGHT = 190;
    private static final int TOP = 50;
    private static final int BOTTOM = 60;

    /** A series' points, in x order. */
    public record Series(String name, List<double[]> points) {
    }

    private final String title;
    private final String xLabel;
    private final String yLabel;
    private final Map<String, Series> series = new LinkedHashMap<>();

    public LineChart(String title, String xLabel, String yLabel) {
        this.title = title;
        this.xLabel = xLabel;
        this.yLabel = yLabel;
    }

    public LineChart add(Series s) {
        series.put(s.name(), s);
        return this;
    }

    public void write(Path png) throws IOException {
        System.setProperty("java.awt.headless", "true");
        double[] x = range(0);
        double[] y = range(1);
        y[0] = Math.min(0, y[0]);
        BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, WIDTH, HEIGHT);
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        g.drawString(title, LEFT, 30);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        int plotW = WIDTH - LEFT - RIGHT;
        int plotH = HEIGHT - TOP - BOTTOM;
        double xStep = niceStep(x[1] - x[0]);
        double yStep = niceStep(y[1] - y[0]);
        x[1] = Math.max(x[1], x[0] + xStep);
        y[1] = Math.ceil(y[1] / yStep) * yStep;
        for (double v = Math.ceil(y[0] / yStep) * yStep; v <= y[1] + 1e-9; v += yStep) {
            int py = TOP + plotH - (int) ((v - y[0]) / (y[1] - y[0]) * plotH);
            g.setColor(new Color(0xe6e6e6));
            g.drawLine(LEFT, py, LEFT + plotW, py);
            g.setColor(Color.DARK_GRAY);
            g.drawString(format(v), LEFT - 8 - g.getFontMetrics().stringWidth(format(v)), py + 4);
        }
        for (double v = Math.ceil(x[0] / xStep) * xStep; v <= x[1] + 1e-9; v += xStep) {
            int px = LEFT + (int) ((v - x[0]) / (x[1] - x[0]) * plotW);
            g.setColor(Color.DARK_GRAY);
            g.drawLine(px, TOP + plotH, px, TOP + plotH + 4);
            g.drawString(format(v), px - g.getFontMetrics().stringWidth(format(v)) / 2, TOP + plotH + 18);
        }
        g.setColor(Color.BLACK);
        g.drawRect(LEFT, TOP, plotW, plotH);
        g.drawString(xLabel, LEFT + plotW / 2 - g.getFontMetrics().stringWidth(xLabel) / 2, HEIGHT - 18);
        Graphics2D vertical = (Graphics2D) g.create();
        vertical.rotate(-Math.PI / 2);
        vertical.drawString(yLabel, -(TOP + plotH / 2 + g.getFontMetrics().stringWidth(yLabel) / 2), 20);
        vertical.dispose();
        int i = 0;
        for (Series s : series.values()) {
            Color color = PALETTE[i % PALETTE.length];
            g.setColor(color);
            g.setStroke(new BasicStroke(2f));
            int[] last = null;
            for (double[] p : s.points()) {
                int px = LEFT + (int) ((p[0] - x[0]) / (x[1] - x[0]) * plotW);
                int py = TOP + plotH - (int) ((p[1] - y[0]) / (y[1] - y[0]) * plotH);
                if (last != null) {
                    g.drawLine(last[0], last[1], px, py);
                }
                g.fillOval(px - 3, py - 3, 6, 6);
                last = new int[] {px, py};
            }
            int ly = TOP + 10 + i * 20;
            g.fillRect(LEFT + plotW + 15, ly - 8, 14, 10);
            g.setColor(Color.BLACK);
            g.drawString(s.name(), LEFT + plotW + 35, ly + 1);
            i++;
        }
        g.dispose();
        ImageIO.write(image, "png", png.toFile());
    }

    private double[] range(int axis) {
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (Series s : series.values()) {
            for (double[] p : s.points()) {
                min = Math.min(min, p[axis]);
                max = Math.max(max, p[axis]);
            }
        }
        if (min == Double.POSITIVE_INFINITY) {
            throw new IllegalArgumentException("nothing to plot: every series is empty");
        }
        return new double[] {min, max == min ? min + 1 : max};
    }

    /** 1, 2 or 5 times a power of ten, giving 4-10 ticks over the span. */
    static double niceStep(double span) {
        double raw = span / 6;
        double power = Math.pow(10, Math.floor(Math.log10(raw)));
        double fraction = raw / power;
        return (fraction < 1.5 ? 1 : fraction < 3.5 ? 2 : fraction < 7.5 ? 5 : 10) * power;
    }

    private static String format(double v) {
        return Math.abs(v - Math.rint(v)) < 1e-9 ? String.format(Locale.ROOT, "%.0f", v)
                : String.format(Locale.ROOT, "%.2f", v).replaceAll("0+$", "");
    }
}
