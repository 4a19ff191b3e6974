package org.farmgate.durable;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/** A page of rows, with how many match in all. */
public record Page<T>(@JsonProperty("rows") List<T> rows, @JsonProperty("total") long total,
        @JsonProperty("limit") int limit, @JsonProperty("offset") int offset) {

    public Page {
        rows = List.copyOf(rows);
    }
}
