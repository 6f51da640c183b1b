package io.github.distlock.torture.fence;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.github.distlock.fixtures.redis.RespClient;

/**
 * The fenced resource's protocol, shared by the workers that write to it and the harness that reads its log. It
 * lives on a redis-server of its own that no fault touches, and is reached with the raw test client, never with
 * the code under test.
 */
public final class Fence {

	/** The list every write is appended to, in the order the fence server ran them. */
	public static final String LOG_KEY = "fence:log";

	private static final String SCRIPT = load();

	private Fence() {
	}

	private static String load() {
		try (InputStream in = Fence.class.getResourceAsStream("fence.lua")) {
			if (in == null) {
				throw new IllegalStateException("Missing fence.lua next to " + Fence.class.getName());
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Writes to the resource with a token.
	 * @param client a connection to the fence server that no other thread uses
	 * @param checked whether the fence checks the token (false only for the negative control)
	 * @return whether the write was accepted
	 */
	public static boolean write(RespClient client, String resource, long token, String writer, String phase,
			boolean checked) {
		Object reply = client.call("EVAL", SCRIPT, 2, "fence:highest:" + resource, LOG_KEY, token, resource, writer,
				phase, checked ? "1" : "0");
		return Long.valueOf(1).equals(reply);
	}

	/** Every write so far, one record line each. */
	@SuppressWarnings("unchecked")
	public static List<String> log(RespClient client) {
		return (List<String>) client.call("LRANGE", LOG_KEY, 0, -1);
	}

}
