package io.github.distlock.redis;

import java.nio.charset.StandardCharsets;

/**
 * The Redis Cluster hash slot of a key, computed here as the cluster does (CRC16/XMODEM of the key's hash tag, or of
 * the whole key when it has none, modulo 16384), so that locks can be grouped by slot without asking the server.
 */
final class HashSlot {

	static final int SLOTS = 16384;

	private HashSlot() {
	}

	static int of(String key) {
		byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
		int start = 0;
		int end = bytes.length;
		int open = indexOf(bytes, (byte) '{', 0);
		if (open >= 0) {
			int close = indexOf(bytes, (byte) '}', open + 1);
			// An empty tag ("{}") does not count: the whole key is hashed then.
			if (close > open + 1) {
				start = open + 1;
				end = close;
			}
		}
		return crc16(bytes, start, end) & (SLOTS - 1);
	}

	private static int indexOf(byte[] bytes, byte wanted, int from) {
		for (int i = from; i < bytes.length; i++) {
			if (bytes[i] == wanted) {
				return i;
			}
		}
		return -1;
	}

	/** CRC16 with polynomial 0x1021 and initial value 0, bit by bit: keys are short, a table would buy nothing. */
	private static int crc16(byte[] bytes, int start, int end) {
		int crc = 0;
		for (int i = start; i < end; i++) {
			crc ^= (bytes[i] & 0xFF) << 8;
			for (int bit = 0; bit < 8; bit++) {
				crc = ((crc & 0x8000) != 0) ? (crc << 1) ^ 0x1021 : crc << 1;
			}
		}
		return crc & 0xFFFF;
	}

}
