package io.github.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.redisson.connection.CRC16;

/**
 * The Redis Cluster hash slot of a key, computed here as the cluster does (CRC16 of the key's hash tag, or of the
 * whole key when it has none, modulo 16384), so that locks can be grouped by slot without asking the server. The CRC
 * is Redisson's, the one it routes commands with; only the hash tag rule is applied here, since Redisson offers it on
 * its connection manager alone.
 */
final class HashSlot {

	static final int SLOTS = 16384;

	private HashSlot() {
	}

	static int of(String key) {
		byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
		int open = indexOf(bytes, (byte) '{', 0);
		if (open >= 0) {
			int close = indexOf(bytes, (byte) '}', open + 1);
			// An empty tag ("{}") does not count: the whole key is hashed then.
			if (close > open + 1) {
				bytes = Arrays.copyOfRange(bytes, open + 1, close);
			}
		}
		return CRC16.crc16(bytes) & (SLOTS - 1);
	}

	private static int indexOf(byte[] bytes, byte wanted, int from) {
		for (int i = from; i < bytes.length; i++) {
			if (bytes[i] == wanted) {
				return i;
			}
		}
		return -1;
	}

}
