package io.github.distlock.zookeeper;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

import org.apache.zookeeper.util.ServiceUtils;

/**
 * Ports for the test servers, and a test JVM that survives a server that cannot start.
 * <p>
 * Curator picks a server's ports by binding port 0 and letting go: a port of the ephemeral range, which any outgoing
 * connection of the JVM (a client reconnecting, say) may take before the server binds it. ZooKeeper's embedded server
 * then exits the whole JVM. Ports below Linux's ephemeral range (32768 and up) are never given to outgoing
 * connections, so one found free here stays free.
 */
final class ServerPorts {

	private static final int FIRST = 20_000;

	private static final int LAST = 32_000;

	private ServerPorts() {
	}

	/**
	 * The ports handed out so far in this JVM, never handed out again: an ensemble's nine ports are picked one after
	 * another, each free when probed, and a server binds its quorum port only once it leads, so a port picked twice
	 * (by chance about one ensemble in 300) can leave the elected leader unable to bind and the ensemble without a
	 * leader until sessions expire, as CI once saw ("Couldn't bind to /127.0.0.1:24779"; which process held that port
	 * the log does not say).
	 */
	private static final Set<Integer> handedOut = ConcurrentHashMap.newKeySet();

	/** A port below the ephemeral range that nothing listens on now, and that this JVM has not handed out. */
	static int free() {
		for (int attempt = 0; attempt < 500; attempt++) {
			int port = ThreadLocalRandom.current().nextInt(FIRST, LAST);
			if (!handedOut.add(port)) {
				continue;
			}
			try (ServerSocket probe = new ServerSocket(port)) {
				return port;
			}
			catch (IOException ex) {
				// taken: try another
			}
		}
		throw new IllegalStateException("No free port between " + FIRST + " and " + LAST);
	}

	/**
	 * Makes a server that fails to start (ZooKeeper's embedded server asks for System.exit) log instead, so the test
	 * that started it fails and the others still run.
	 */
	static void keepTheJvmOnServerFailure() {
		ServiceUtils.setSystemExitProcedure(ServiceUtils.LOG_ONLY);
	}

}
