package io.github.distlock.testing.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Asks a Redis server whether it accepts commands, with a bare socket: a freshly started server gives no other sign
 * that it is ready, and starting one should not need a Redis client.
 */
final class RedisPing {

	private static final byte[] PING = "PING\r\n".getBytes(StandardCharsets.US_ASCII);

	private static final byte[] PONG = "+PONG".getBytes(StandardCharsets.US_ASCII);

	private RedisPing() {
	}

	/** Whether a server on the address answers PING with PONG within the timeout. */
	static boolean answers(String host, int port, int timeoutMillis) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), timeoutMillis);
			socket.setSoTimeout(timeoutMillis);
			OutputStream out = socket.getOutputStream();
			out.write(PING);
			out.flush();
			InputStream in = socket.getInputStream();
			byte[] reply = in.readNBytes(PONG.length);
			return Arrays.equals(reply, PONG);
		}
		catch (IOException ex) {
			return false;
		}
	}

}
