package io.github.distlock.test;

/**
 * A real Redis server that a test owns alone.
 */
public interface RedisServer extends AutoCloseable {

	String host();

	int port();

	default String url() {
		return "redis://" + host() + ":" + port();
	}

	/** The user distlock connects as, or null for the default user. */
	default String username() {
		return null;
	}

	/** The password of {@link #username()}, or null. */
	default String password() {
		return null;
	}

	/** A new raw connection, with every permission; close it after use. */
	default RespClient client() {
		return new RespClient(host(), port());
	}

	/** Stops the server answering while it keeps its connections (SIGSTOP). */
	void pause();

	/** Undoes {@link #pause()}. */
	void resume();

	/** Kills the server (SIGKILL). */
	void kill();

	/** Kills the server and starts it again, with an empty memory, on the same port. */
	void restart();

	@Override
	void close();

}
