package io.github.distlock.torture.run;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.distlock.fixtures.redis.RedisProcess;
import io.github.distlock.torture.check.RunRecordsReader;

/**
 * A keyspace recorder on each server of a Redis topology, each writing {@code keyspace-<port>.log}, which the
 * checker reads together: in a failover a replica becomes the master whose expiries count, so every server is
 * watched from the start.
 */
final class KeyspaceRecorders implements AutoCloseable {

	private final List<KeyspaceRecorder> recorders = new ArrayList<>();

	/** Starts a recorder on every server and returns once each has its subscription; stops them all if one fails. */
	static KeyspaceRecorders start(List<RedisProcess> servers, String keyPattern, Path runDirectory) throws InterruptedException {
		KeyspaceRecorders started = new KeyspaceRecorders();
		try {
			for (RedisProcess server : servers) {
				KeyspaceRecorder recorder = new KeyspaceRecorder(server.port(), keyPattern,
						runDirectory.resolve("keyspace-" + server.port() + ".log"));
				started.recorders.add(recorder);
				recorder.start(Duration.ofSeconds(10));
			}
			return started;
		}
		catch (InterruptedException | RuntimeException ex) {
			started.close();
			throw ex;
		}
	}

	@Override
	public void close() {
		for (KeyspaceRecorder recorder : this.recorders) {
			try {
				recorder.close();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

}
