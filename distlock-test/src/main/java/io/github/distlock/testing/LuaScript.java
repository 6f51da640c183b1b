package io.github.distlock.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The text of one of this package's Lua scripts, kept as {@code .lua} resources with their roles in a comment
 * header, as distlock-redis keeps its own.
 */
final class LuaScript {

	private LuaScript() {
	}

	static String load(String name) {
		try (InputStream in = LuaScript.class.getResourceAsStream(name)) {
			if (in == null) {
				throw new IllegalStateException("Missing script " + name + " next to " + LuaScript.class.getName());
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read script " + name, ex);
		}
	}

}
