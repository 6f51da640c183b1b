package io.github.distlock.jdbc;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A lock's primary key in the lock table: the SHA-256 of its name and key, length-prefixed so that no name and key
 * can be mistaken for another pair ({@code a} + {@code x:y} is not {@code a:x} + {@code y}). A fixed 64-character
 * key fits every database's index limit whatever the key's length or characters.
 */
final class LockIdentity {

	private LockIdentity() {
	}

	static String of(String name, String key) {
		MessageDigest sha256;
		try {
			sha256 = MessageDigest.getInstance("SHA-256");
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("Every Java runtime has SHA-256", ex);
		}
		sha256.update((name.length() + ":").getBytes(StandardCharsets.US_ASCII));
		update(sha256, name);
		update(sha256, key);
		return HexFormat.of().formatHex(sha256.digest());
	}

	/** Every UTF-16 unit as two bytes: unlike an encoder, this keeps a lone surrogate distinct from '?'. */
	private static void update(MessageDigest digest, String text) {
		byte[] units = new byte[text.length() * 2];
		for (int i = 0; i < text.length(); i++) {
			char unit = text.charAt(i);
			units[2 * i] = (byte) (unit >>> 8);
			units[2 * i + 1] = (byte) unit;
		}
		digest.update(units);
	}

}
