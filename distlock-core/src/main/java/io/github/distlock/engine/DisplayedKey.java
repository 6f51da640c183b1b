package io.github.distlock.engine;

import org.jspecify.annotations.Nullable;

/**
 * A lock key as it may be shown in a log line, an exception message, a health detail or an endpoint: keys come from
 * method arguments, so a user's input could otherwise forge log lines (CR/LF) or flood a log (a megabyte of key).
 * Control and line-separator characters are escaped, and a long key is cut to its first
 * {@value #MAX_SHOWN} characters with the full length said.
 */
public final class DisplayedKey {

	/** Characters of a key shown at most. */
	public static final int MAX_SHOWN = 200;

	private DisplayedKey() {
	}

	public static String of(@Nullable String key) {
		if (key == null) {
			return "null";
		}
		int shown = Math.min(key.length(), MAX_SHOWN);
		if (shown == key.length() && isPlain(key)) {
			return key;
		}
		StringBuilder out = new StringBuilder(shown + 32);
		for (int i = 0; i < shown; i++) {
			char c = key.charAt(i);
			switch (c) {
				case '\r' -> out.append("\\r");
				case '\n' -> out.append("\\n");
				case '\t' -> out.append("\\t");
				case '\\' -> out.append("\\\\");
				default -> {
					if (needsEscape(c)) {
						out.append(String.format("\\u%04x", (int) c));
					}
					else {
						out.append(c);
					}
				}
			}
		}
		if (shown < key.length()) {
			out.append("...(").append(key.length()).append(" characters)");
		}
		return out.toString();
	}

	private static boolean isPlain(String key) {
		for (int i = 0; i < key.length(); i++) {
			char c = key.charAt(i);
			if (c == '\\' || needsEscape(c)) {
				return false;
			}
		}
		return true;
	}

	/** ISO control characters, and the Unicode line and paragraph separators some log viewers break lines at. */
	private static boolean needsEscape(char c) {
		return Character.isISOControl(c) || c == '\u2028' || c == '\u2029';
	}

}
