package io.github.distlock.test;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A minimal Redis client for tests: it speaks RESP over a socket and shares no code with distlock or Redisson, so
 * assertions about what is in Redis do not trust the code under test.
 */
public final class RespClient implements AutoCloseable {

	private final Socket socket;

	private final InputStream in;

	private final OutputStream out;

	public RespClient(String host, int port) {
		this(host, port, Duration.ofSeconds(10));
	}

	/**
	 * @param readTimeout how long to wait for a reply; {@link Duration#ZERO} waits for ever, as a connection that
	 * only listens (a subscription, MONITOR) must
	 */
	public RespClient(String host, int port, Duration readTimeout) {
		try {
			this.socket = new Socket();
			this.socket.connect(new InetSocketAddress(host, port), 2000);
			this.socket.setSoTimeout(Math.toIntExact(readTimeout.toMillis()));
			this.in = new BufferedInputStream(this.socket.getInputStream());
			this.out = this.socket.getOutputStream();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot connect to Redis at " + host + ":" + port, ex);
		}
	}

	/** Sends a command and returns its reply: String, Long, List, null, or throws on an error reply. */
	public Object call(Object... args) {
		try {
			StringBuilder command = new StringBuilder("*").append(args.length).append("\r\n");
			for (Object arg : args) {
				byte[] bytes = String.valueOf(arg).getBytes(StandardCharsets.UTF_8);
				command.append('$').append(bytes.length).append("\r\n").append(String.valueOf(arg)).append("\r\n");
			}
			this.out.write(command.toString().getBytes(StandardCharsets.UTF_8));
			this.out.flush();
			return read();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Reads one more reply without sending anything: what a connection in subscribe or MONITOR mode receives
	 * unasked after the command that started it.
	 */
	public Object readReply() {
		try {
			return read();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@SuppressWarnings("unchecked")
	public List<String> keys(String pattern) {
		return (List<String>) call("KEYS", pattern);
	}

	/**
	 * The keys matching the pattern that belong to locks: all of them but the token floors ({@code <prefix>:token},
	 * or {@code <prefix>:{<tag>}:token} per slot of a cluster), which outlive the locks by design, a few seconds after
	 * the last grant, and are shared by many locks.
	 */
	public List<String> lockKeys(String pattern) {
		return withoutTokenFloors(keys(pattern));
	}

	/** The keys given but the token floors (see {@link #lockKeys}). */
	public static List<String> withoutTokenFloors(List<String> keys) {
		return keys.stream().filter((key) -> !key.endsWith(":token")).toList();
	}

	public String get(String key) {
		return (String) call("GET", key);
	}

	/** Calls Redis has counted so far of the commands the pattern matches (as "evalsha|eval"), scripts' own included. */
	public long commandCalls(String commands) {
		String stats = (String) call("INFO", "commandstats");
		long calls = 0;
		Matcher matcher = Pattern.compile("cmdstat_(" + commands + "):calls=(\\d+)").matcher(stats);
		while (matcher.find()) {
			calls += Long.parseLong(matcher.group(2));
		}
		return calls;
	}

	private Object read() throws IOException {
		int type = this.in.read();
		String line = readLine();
		switch (type) {
			case '+':
				return line;
			case '-':
				throw new ErrorReply(line);
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
				throw new IOException("Unexpected reply type " + type);
		}
	}

	private String readLine() throws IOException {
		StringBuilder line = new StringBuilder();
		int c;
		while ((c = this.in.read()) != '\r') {
			if (c < 0) {
				throw new IOException("Connection closed");
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
			// nothing left to do
		}
	}

	/** Redis answered with an error, such as {@code -NOAUTH Authentication required.} */
	public static final class ErrorReply extends IllegalStateException {

		ErrorReply(String line) {
			super("Redis error: " + line);
		}

	}

}
