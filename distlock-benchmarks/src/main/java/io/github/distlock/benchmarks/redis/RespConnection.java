package io.github.distlock.benchmarks.redis;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A bare RESP connection for reading Redis' counters. Deliberately not one of the clients under test, so that the
 * measuring side neither shares their connection pools nor adds to their statistics in any way but the commands
 * it sends itself (which {@link RedisInfo} leaves out).
 */
final class RespConnection implements AutoCloseable {

	private final Socket socket;

	private final InputStream in;

	private final OutputStream out;

	RespConnection(String host, int port) {
		try {
			this.socket = new Socket();
			this.socket.connect(new InetSocketAddress(host, port), 2000);
			this.socket.setSoTimeout(30_000);
			this.in = new BufferedInputStream(this.socket.getInputStream());
			this.out = this.socket.getOutputStream();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot connect to Redis at " + host + ":" + port, ex);
		}
	}

	/** Sends one command; the reply is a String, Long, List, or null. An error reply is thrown. */
	Object call(Object... args) {
		try {
			ByteArrayOutputStream command = new ByteArrayOutputStream();
			command.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
			for (Object arg : args) {
				byte[] bytes = String.valueOf(arg).getBytes(StandardCharsets.UTF_8);
				command.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
				command.write(bytes);
				command.write('\r');
				command.write('\n');
			}
			this.out.write(command.toByteArray());
			this.out.flush();
			return reply();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private Object reply() throws IOException {
		int type = this.in.read();
		String line = line();
		switch (type) {
			case '+':
				return line;
			case '-':
				throw new IllegalStateException("Redis replied with an error: " + line);
			case ':':
				return Long.parseLong(line);
			case '$': {
				int length = Integer.parseInt(line);
				if (length < 0) {
					return null;
				}
				byte[] data = this.in.readNBytes(length);
				line();
				return new String(data, StandardCharsets.UTF_8);
			}
			case '*': {
				int count = Integer.parseInt(line);
				if (count < 0) {
					return null;
				}
				List<Object> items = new ArrayList<>(count);
				for (int i = 0; i < count; i++) {
					items.add(reply());
				}
				return items;
			}
			default:
				throw new IOException("Not a RESP reply type: " + type);
		}
	}

	private String line() throws IOException {
		StringBuilder line = new StringBuilder();
		int c;
		while ((c = this.in.read()) != '\r') {
			if (c < 0) {
				throw new IOException("Redis closed the connection");
			}
			line.append((char) c);
		}
		this.in.read();
		return line.toString();
	}

	@Override
	public void close() {
		try {
			this.socket.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
	}

}
