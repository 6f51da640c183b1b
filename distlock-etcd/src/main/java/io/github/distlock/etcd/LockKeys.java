package io.github.distlock.etcd;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

import io.etcd.jetcd.ByteSequence;

/**
 * Where each lock lives in etcd's flat key space: every acquisition of a lock is a key of its own under the lock's
 * prefix {@code <root>/<name>/<key>/}, and the keys under that prefix are the lock's queue.
 * <p>
 * etcd takes any bytes as a key, but a prefix is only a lock's own if no other lock's keys can start with it: so the
 * name and the key must never contain the separator, and two different names (or keys) must never be written alike.
 * Every byte of their UTF-8 form outside {@code [A-Za-z0-9._-]} is written as {@code %} and two uppercase hex
 * digits. The result contains no {@code /}, and reads back to exactly one string, so "a/b" and "a%2Fb" stay apart, as
 * do name "a/b" with key "c" and name "a" with key "b/c". The empty string, which would leave an empty element, is a
 * lone {@code %}, which no escaped string is.
 * <p>
 * Keys of abandoned acquisitions (see {@link LockQueue#abandon}) are marked under {@code <root>/%%abandoned/}: a
 * double {@code %} never starts an escaped element, so no lock's prefix can start like that.
 */
final class LockKeys {

	private static final char[] HEX = "0123456789ABCDEF".toCharArray();

	private final String root;

	/**
	 * @param root where every lock's prefix starts, such as {@code /distlock}; a trailing slash is dropped
	 */
	LockKeys(String root) {
		Objects.requireNonNull(root, "root");
		String trimmed = root.endsWith("/") ? root.substring(0, root.length() - 1) : root;
		if (trimmed.isEmpty()) {
			throw new IllegalArgumentException("The root of the lock keys must not be empty: '" + root + "'");
		}
		this.root = trimmed;
	}

	/** The prefix every key of the engine starts with, {@code <root>/}: what the etcd user must read and write. */
	String rootPrefix() {
		return this.root + "/";
	}

	/** The prefix of one lock's queue: every acquisition's key starts with it, and no other key does. */
	ByteSequence queue(String name, String key) {
		return bytes(rootPrefix() + escape(name) + "/" + escape(key) + "/");
	}

	/** The key of one acquisition in a lock's queue; the holder id makes it unique. */
	static ByteSequence member(ByteSequence queue, String holder) {
		return queue.concat(bytes(holder));
	}

	/** Where the abandonment of an acquisition's key is marked: outside every queue. */
	ByteSequence abandoned(String holder) {
		return bytes(rootPrefix() + "%%abandoned/" + holder);
	}

	static ByteSequence bytes(String text) {
		return ByteSequence.from(text, StandardCharsets.UTF_8);
	}

	static String escape(String element) {
		if (element.isEmpty()) {
			return "%";
		}
		StringBuilder escaped = new StringBuilder(element.length() + 16);
		for (byte b : element.getBytes(StandardCharsets.UTF_8)) {
			if (isKeptAsIs(b)) {
				escaped.append((char) b);
			}
			else {
				escaped.append('%').append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
			}
		}
		return escaped.toString();
	}

	private static boolean isKeptAsIs(byte b) {
		return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b == '_' || b == '-'
				|| b == '.';
	}

}
