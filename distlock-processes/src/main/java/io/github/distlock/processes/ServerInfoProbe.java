package io.github.distlock.processes;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import org.jspecify.annotations.Nullable;

/**
 * Asks a server for its {@code INFO server} section over a plain socket, with nothing but the JDK: the launcher needs
 * to know that a server answers, and that it is the process it started.
 */
final class ServerInfoProbe {

	private static final byte[] INFO_SERVER = "INFO server\r\n".getBytes(StandardCharsets.US_ASCII);

	private ServerInfoProbe() {
	}

	/**
	 * The server's {@code INFO server} text, or {@code null} when nothing answers on the address in time, or the
	 * server answers with an error (still loading, say).
	 */
	static @Nullable String serverInfo(String host, int port, int timeoutMillis) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), timeoutMillis);
			socket.setSoTimeout(timeoutMillis);
			OutputStream out = socket.getOutputStream();
			out.write(INFO_SERVER);
			out.flush();
			InputStream in = socket.getInputStream();
			String header = readLine(in);
			if (!header.startsWith("$")) {
				return null;
			}
			int length = Integer.parseInt(header.substring(1));
			byte[] body = in.readNBytes(length);
			return (body.length == length) ? new String(body, StandardCharsets.UTF_8) : null;
		}
		catch (IOException | NumberFormatException ex) {
			return null;
		}
	}

	private static String readLine(InputStream in) throws IOException {
		ByteArrayOutputStream line = new ByteArrayOutputStream();
		int previous = -1;
		for (int next = in.read(); next != -1; next = in.read()) {
			if (previous == '\r' && next == '\n') {
				byte[] bytes = line.toByteArray();
				return new String(bytes, 0, bytes.length - 1, StandardCharsets.US_ASCII);
			}
			line.write(next);
			previous = next;
		}
		throw new IOException("The connection closed mid-reply");
	}

}
