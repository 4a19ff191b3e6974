package org.farmgate.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVPrinter;

/** The one CSV dialect the tools write and the plotter reads: RFC 4180 quoting, a header row, Unix line ends. */
public final class Csv {

    private Csv() {
    }

    /** A new file that starts with the header row. */
    public static CSVPrinter write(Path file, String... header) throws IOException {
        return CSVFormat.DEFAULT.builder().setHeader(header).setRecordSeparator('\n').get()
                .print(file, StandardCharsets.UTF_8);
    }

    /** The file's rows, whose cells are found by the names in its header row. */
    public static CSVParser read(Path file) throws IOException {
        return CSVParser.parse(file, StandardCharsets.UTF_8,
                CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).get());
    }
}
