package io.github.distlock.torture.run;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads RESP2 values from a stream, for a subscription whose messages arrive unasked (the test fixture's client
 * only reads the reply to a command it sent). Shares nothing with the code under test.
 */
final class RespReader {

	private final InputStream in;

	RespReader(InputStream in) {
		this.in = in;
	}

	/** The next value: String, Long, List of values, or null; an error reply becomes an exception. */
	Object read() throws IOException {
		int type = this.in.read();
		if (type < 0) {
			throw new EOFException("Connection closed");
		}
		String line = readLine();
		switch (type) {
			case '+':
				return line;
			case '-':
				throw new IOException("Redis error: " + line);
			case ':':
				return Long.parseLong(line);
			case '$': {
				int length = Integer.parseInt(line);
				if (length < 0) {
					return null;
				}
				byte[] data = this.in.readNBytes(length);
				readLine();
				return new String(data, StandardCharsets.UTF_8);
			}
			case '*': {
				int count = Integer.parseInt(line);
				if (count < 0) {
					return null;
				}
				List<Object> items = new ArrayList<>(count);
				for (int i = 0; i < count; i++) {
					items.add(read());
				}
				return items;
			}
			default:
				throw new IOException("Unexpected RESP type '" + (char) type + "'");
		}
	}

	private String readLine() throws IOException {
		StringBuilder line = new StringBuilder();
		int c;
		while ((c = this.in.read()) != '\r') {
			if (c < 0) {
				throw new EOFException("Connection closed");
			}
			line.append((char) c);
		}
		this.in.read();
		return line.toString();
	}

	/** A command in RESP2, ready to write. */
	static byte[] command(String... args) {
		StringBuilder command = new StringBuilder("*").append(args.length).append("\r\n");
		for (String arg : args) {
			command.append('$').append(arg.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(arg)
				.append("\r\n");
		}
		return command.toString().getBytes(StandardCharsets.UTF_8);
	}

}
