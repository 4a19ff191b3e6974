package org.farmgate.bench.plot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LineChartTest {

    @Test
    void drawsAPngWithEverySeriesInItsColour(@TempDir Path dir) throws Exception {
        Path png = dir.resolve("chart.png");
        new LineChart("t", "x", "y")
                .add(new LineChart.Series("a", List.of(new double[] {0, 1}, new double[] {10, 5})))
                .add(new LineChart.Series("b", List.of(new double[] {0, 2}, new double[] {10, 3})))
                .write(png);
        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(900, image.getWidth());
        boolean blue = false;
        boolean red = false;
        for (int x = 0; x < image.getWidth(); x++) {
            for (int y = 0; y < image.getHeight(); y++) {
                int rgb = image.getRGB(x, y) & 0xffffff;
                blue |= rgb == 0x1f77b4;
                red |= rgb == 0xd62728;
            }
        }
        assertTrue(blue && red, "both series drawn");
    }

    @Test
    void nothingToPlotIsAClearError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new LineChart("t", "x", "y").add(new LineChart.Series("a", List.of())).write(Path.of("x.png")));
        assertTrue(e.getMessage().contains("nothing to plot"));
    }
}
