/**
 * The Java code the README and the docs show, compiled with the build: each page's {@code ```java} block names the
 * file here it is taken from, and {@code JavaSnippetDocTests} checks that its lines are in that file. The classes are
 * compiled, never run; what they do is proved by the integration tests.
 */
package io.github.distlock.autoconfigure.docs.snippets;
