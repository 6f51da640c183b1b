package io.github.distlock.autoconfigure.docs.snippets;

/** The order of the docs' examples. */
public record Order(String id) {
}
