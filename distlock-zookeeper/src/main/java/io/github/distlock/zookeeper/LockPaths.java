package io.github.distlock.zookeeper;

import java.nio.charset.StandardCharsets;

import org.apache.curator.utils.ZKPaths;

/**
 * Where each lock lives: {@code /<root>/<name>/<key>}, with the name and the key escaped so that every one of them is
 * a valid ZooKeeper path element and no two of them share an element.
 * <p>
 * ZooKeeper refuses control characters, a few Unicode ranges, "." and ".." as elements, and reads '/' as a
 * separator. Rather than list what it refuses, every character outside {@code [A-Za-z0-9_-]} is written as the
 * percent-escaped bytes of its UTF-8 form (uppercase hex): the result is plain ASCII, and decodes back to exactly one
 * string, so "a/b" and "a%2Fb" cannot meet. The empty string, which would be an empty element, is written as a lone
 * "%", which no escaped string can be.
 */
final class LockPaths {

	/** The prefix of every lock node in a lock's directory; Curator's protection puts its id in front of it. */
	static final String NODE_PREFIX = "lock-";

	private static final char[] HEX = "0123456789ABCDEF".toCharArray();

	private final String root;

	LockPaths(String root) {
		// Validates the root as ZooKeeper would, once, and normalises a trailing slash away.
		this.root = ZKPaths.makePath(root, "");
	}

	String root() {
		return this.root;
	}

	/** The directory whose children queue for this lock. */
	String lockDirectory(String name, String key) {
		return ZKPaths.makePath(this.root, escape(name), escape(key));
	}

	/** The path a new lock node is created at, before ZooKeeper appends its sequence number. */
	String nodePrefix(String name, String key) {
		return ZKPaths.makePath(lockDirectory(name, key), NODE_PREFIX);
	}

	static String escape(String element) {
		if (element.isEmpty()) {
			return "%";
		}
		StringBuilder escaped = new StringBuilder(element.length());
		for (byte b : element.getBytes(StandardCharsets.UTF_8)) {
			if (isPlain(b)) {
				escaped.append((char) b);
			}
			else {
				escaped.append('%').append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
			}
		}
		return escaped.toString();
	}

	private static boolean isPlain(byte b) {
		return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b == '_' || b == '-';
	}

}
