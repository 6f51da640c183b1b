package io.github.distlock.benchmarks.etcd;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.github.distlock.benchmarks.lockserver.LockServer;
import io.github.distlock.benchmarks.lockserver.ServerCounters;
import io.github.distlock.benchmarks.lockserver.SystemLock;

/**
 * The etcd server the benchmark measures on ({@link EtcdProcess}), and a jetcd client of its own for every instance
 * of a system.
 */
final class EtcdUnderTest implements LockServer<Client> {

	private static final long CONNECT_TIMEOUT_SECONDS = 10;

	private final EtcdProcess etcd;

	private EtcdUnderTest(EtcdProcess etcd) {
		this.etcd = etcd;
	}

	static EtcdUnderTest start() throws Exception {
		return new EtcdUnderTest(EtcdProcess.start());
	}

	/**
	 * One new instance of a system: a client of its own, connected by one read before the system gets it, and the
	 * system's lock on it. Built as the etcd engine asks, with {@code waitForReady(false)}: a call fails at once,
	 * rather than waiting, when etcd cannot be reached.
	 */
	@Override
	public EtcdInstance open(Function<Client, SystemLock> system) throws Exception {
		Client client = Client.builder().endpoints(this.etcd.clientUrl()).waitForReady(false).build();
		try {
			client.getKVClient()
				.get(ByteSequence.from("/", StandardCharsets.UTF_8))
				.get(CONNECT_TIMEOUT_SECONDS, TimeUnit.SECONDS);
			return new EtcdInstance(client, system.apply(client));
		}
		catch (Exception ex) {
			client.close();
			throw ex;
		}
	}

	/** The server's counters now, from its metrics ({@link EtcdMetrics}). */
	@Override
	public ServerCounters counters() throws IOException, InterruptedException {
		return EtcdMetrics.parse(this.etcd.metrics());
	}

	/** How the server runs, for the report's first line. */
	String description() throws IOException, InterruptedException {
		return "one etcd " + this.etcd.version() + " server that the benchmark started (one member on loopback, data "
				+ (this.etcd.inMemory() ? "in /dev/shm" : "in a temporary directory on disk")
				+ ", fsync on)";
	}

	@Override
	public void close() {
		this.etcd.close();
	}

}
