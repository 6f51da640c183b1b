package io.github.distlock.benchmarks.etcd;

import io.github.distlock.benchmarks.lockserver.ServerCounters;

/**
 * What an etcd server has done so far, read from its metrics rather than through a client, so that no request of
 * the reader mixes with those counted (as ZooKeeper's {@code srvr} command does for the ZooKeeper benchmark):
 * <ul>
 * <li>requests: every call etcd's gRPC server began, and every message it received on a stream. A plain call (a
 * transaction, a lock, a lease grant) is one; a watch is one for its stream and one for its creation request, as
 * jetcd opens a stream for every watch (and cancels it to stop watching); a lease keep-alive is one message on the
 * client's keep-alive stream. Work etcd's lock service does inside the server, through its own in-process client, is
 * not received from a client and is not counted.</li>
 * <li>writes: etcd's revision ({@code etcd_debugging_mvcc_current_revision}), the number every response header
 * carries and the etcd engine's tests compare, which grows by one with every transaction that changes a key. Leases
 * and their keep-alives do not change it.</li>
 * </ul>
 */
final class EtcdMetrics {

	private static final String STARTED = "grpc_server_started_total{";

	private static final String RECEIVED = "grpc_server_msg_received_total{";

	private static final String UNARY = "grpc_type=\"unary\"";

	private static final String REVISION = "etcd_debugging_mvcc_current_revision ";

	private EtcdMetrics() {
	}

	/** The counters in a {@code /metrics} answer, in Prometheus' text format. */
	static ServerCounters parse(String metrics) {
		long requests = 0;
		Long revision = null;
		for (String line : metrics.split("\n")) {
			if (line.startsWith(STARTED) || (line.startsWith(RECEIVED) && !line.contains(UNARY))) {
				requests += value(line);
			}
			else if (line.startsWith(REVISION)) {
				revision = value(line);
			}
		}
		if (revision == null) {
			throw new IllegalStateException("etcd's metrics have no '" + REVISION.strip() + "'");
		}
		return new ServerCounters(requests, revision);
	}

	/** A sample's value: the last field, which Prometheus writes as a float ("1.234567e+06" for larger counts). */
	private static long value(String line) {
		return Math.round(Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)));
	}

}
