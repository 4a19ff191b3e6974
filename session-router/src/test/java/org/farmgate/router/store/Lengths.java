package org.farmgate.router.store;

/** A query of every entry that answers with each value's length: a projection smaller than the value. */
public record Lengths() implements Query<String, Integer> {

    @Override
    public boolean matches(String value) {
        return true;
    }

    @Override
    public Integer project(String value) {
        return value.length();
    }
}
