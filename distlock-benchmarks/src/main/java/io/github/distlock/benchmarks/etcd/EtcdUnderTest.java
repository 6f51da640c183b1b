package io.github.distlock.benchmarks.etcd;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.github.distlock.fixtures.etcd.TestEtcd;
import io.github.distlock.benchmarks.lockserver.LockServer;
import io.github.distlock.benchmarks.lockserver.ServerCounters;
import io.github.distlock.benchmarks.lockserver.SystemLock;

/**
 * The etcd server the benchmark measures on, and a jetcd client of its own for every instance of a system. The server
 * is one member started by distlock-etcd's test fixture ({@link TestEtcd}): a process of the machine's etcd binary
 * (Debian's {@code etcd-server}; none found fails saying how to install it) on free loopback ports, its data in
 * /dev/shm where the machine has it, fsync kept (on /dev/shm it touches no disk).
 */
final class EtcdUnderTest implements LockServer<Client> {

	private static final long CONNECT_TIMEOUT_SECONDS = 10;

	private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(5);

	private final TestEtcd etcd;

	private final URI clientUrl;

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(HTTP_TIMEOUT).build();

	private EtcdUnderTest(TestEtcd etcd) {
		this.etcd = etcd;
		this.clientUrl = URI.create(etcd.endpoints().get(0));
	}

	static EtcdUnderTest start() throws Exception {
		return new EtcdUnderTest(TestEtcd.single());
	}

	/**
	 * One new instance of a system: a client of its own, connected by one read before the system gets it, and the
	 * system's lock on it. Built as the etcd engine asks, with {@code waitForReady(false)}: a call fails at once,
	 * rather than waiting, when etcd cannot be reached.
	 */
	@Override
	public EtcdInstance open(Function<Client, SystemLock> system) throws Exception {
		Client client = Client.builder().endpoints(this.clientUrl).waitForReady(false).build();
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
		return EtcdMetrics.parse(get("/metrics"));
	}

	/** How the server runs, for the report's first line. */
	String description() throws IOException, InterruptedException {
		return "one etcd " + version() + " server that the benchmark started (one member on loopback, data "
				+ (this.etcd.members().get(0).inMemory() ? "in /dev/shm" : "in a temporary directory on disk")
				+ ", fsync on)";
	}

	/** The server's release, as its {@code /version} endpoint states it. */
	private String version() throws IOException, InterruptedException {
		String answer = get("/version");
		int key = answer.indexOf("\"etcdserver\":\"");
		if (key < 0) {
			throw new IllegalStateException("No server version in etcd's /version answer: " + answer);
		}
		int start = key + "\"etcdserver\":\"".length();
		return answer.substring(start, answer.indexOf('"', start));
	}

	/** One of etcd's HTTP endpoints: {@code /metrics} counts everything in Prometheus' text format. */
	private String get(String path) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(this.clientUrl.resolve(path)).timeout(HTTP_TIMEOUT).build();
		HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
		if (response.statusCode() != 200) {
			throw new IOException("etcd answered " + response.statusCode() + " to GET " + path + ": "
					+ response.body());
		}
		return response.body();
	}

	@Override
	public void close() {
		this.etcd.close();
	}

}
