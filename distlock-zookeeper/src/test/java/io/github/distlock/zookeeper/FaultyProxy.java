package io.github.distlock.zookeeper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A TCP relay on loopback between ZooKeeper clients and a server, with two faults a test can turn on.
 * <ul>
 * <li>A lost answer ({@link #dropAnswerTo}): the next request that names a path goes to the server, which applies
 * it; its answer is dropped and the connection cut, as a server that dies or a network that fails between applying a
 * write and answering it. The client reconnects through the relay, to the same session.</li>
 * <li>A frozen client ({@link #freeze}, then {@link #cut}): nothing passes either way while the client's side stays
 * open, so the client goes on believing itself connected, as a process stopped by a signal or a long pause would,
 * while the server may end its session. Requests sent meanwhile reach nobody; a cut then fails them with a lost
 * connection, and the relay passes new connections again.</li>
 * </ul>
 */
final class FaultyProxy implements AutoCloseable {

	private final ServerSocket server;

	private final int targetPort;

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	private final AtomicReference<byte[]> marker = new AtomicReference<>();

	/** Counted down by a frozen relay when a request naming {@link #marker} arrives. */
	private volatile CountDownLatch requestWhileFrozen = new CountDownLatch(0);

	/** Open (zero) unless frozen; the relays of a frozen connection wait on it until the cut. */
	private volatile CountDownLatch thawed = new CountDownLatch(0);

	private volatile boolean closed;

	FaultyProxy(int targetPort) throws IOException {
		this.targetPort = targetPort;
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(this::accept, "zk-proxy-" + this.server.getLocalPort());
		acceptor.setDaemon(true);
		acceptor.start();
	}

	String connectString() {
		return "127.0.0.1:" + this.server.getLocalPort();
	}

	/** Loses the answer to the next request that names this path. */
	void dropAnswerTo(String path) {
		this.marker.set(path.getBytes(StandardCharsets.UTF_8));
	}

	/** Whether an answer was dropped since the last {@link #dropAnswerTo}. */
	boolean dropped() {
		return this.marker.get() == null;
	}

	/**
	 * Stops passing anything on the open connections, without closing them.
	 * @param path a path whose request {@link #awaitFrozenRequest} waits for
	 */
	void freeze(String path) {
		this.marker.set(path.getBytes(StandardCharsets.UTF_8));
		this.requestWhileFrozen = new CountDownLatch(1);
		this.thawed = new CountDownLatch(1);
	}

	/** Waits until a request naming the frozen path was sent, and held back. */
	boolean awaitFrozenRequest(long timeout, TimeUnit unit) throws InterruptedException {
		return this.requestWhileFrozen.await(timeout, unit);
	}

	/** Closes every open connection: what was held back is lost, and new connections pass again. */
	void cut() throws IOException {
		this.marker.set(null);
		this.thawed.countDown();
		for (Socket socket : this.sockets) {
			socket.close();
		}
		this.sockets.clear();
	}

	private boolean frozen() {
		return this.thawed.getCount() > 0;
	}

	private void accept() {
		while (!this.closed) {
			try {
				Socket client = this.server.accept();
				Socket target = new Socket(InetAddress.getLoopbackAddress(), this.targetPort);
				this.sockets.add(client);
				this.sockets.add(target);
				Connection connection = new Connection(client, target);
				start(() -> connection.relayRequests());
				start(() -> connection.relayAnswers());
			}
			catch (IOException ex) {
				// Closed: clients see a refused or closed connection.
			}
		}
	}

	private static void start(Runnable pump) {
		Thread thread = new Thread(pump, "zk-proxy-pump");
		thread.setDaemon(true);
		thread.start();
	}

	@Override
	public void close() throws IOException {
		this.closed = true;
		this.thawed.countDown();
		this.server.close();
		for (Socket socket : this.sockets) {
			socket.close();
		}
	}

	private final class Connection {

		private final Socket client;

		private final Socket target;

		/** Set once the marked request went to the server: its answer is the one to lose. */
		private volatile boolean answerToDrop;

		Connection(Socket client, Socket target) {
			this.client = client;
			this.target = target;
		}

		void relayRequests() {
			byte[] buffer = new byte[64 * 1024];
			try (InputStream in = this.client.getInputStream(); OutputStream out = this.target.getOutputStream()) {
				for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
					byte[] wanted = FaultyProxy.this.marker.get();
					boolean marked = wanted != null && contains(buffer, read, wanted);
					if (frozen()) {
						if (marked) {
							FaultyProxy.this.requestWhileFrozen.countDown();
						}
						continue;
					}
					if (marked) {
						this.answerToDrop = true;
					}
					out.write(buffer, 0, read);
					out.flush();
				}
			}
			catch (IOException ex) {
				// Cut.
			}
		}

		void relayAnswers() {
			byte[] buffer = new byte[64 * 1024];
			try (InputStream in = this.target.getInputStream(); OutputStream out = this.client.getOutputStream()) {
				for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
					if (frozen()) {
						// Neither the answer nor the server's closing of the connection reaches the client.
						FaultyProxy.this.thawed.await();
						return;
					}
					if (this.answerToDrop) {
						// The server has answered, so it has applied the request: lose the answer with the link.
						FaultyProxy.this.marker.set(null);
						this.client.close();
						this.target.close();
						return;
					}
					out.write(buffer, 0, read);
					out.flush();
				}
				if (frozen()) {
					FaultyProxy.this.thawed.await();
				}
			}
			catch (IOException ex) {
				// Cut.
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		private static boolean contains(byte[] buffer, int length, byte[] wanted) {
			outer: for (int i = 0; i + wanted.length <= length; i++) {
				for (int j = 0; j < wanted.length; j++) {
					if (buffer[i + j] != wanted[j]) {
						continue outer;
					}
				}
				return true;
			}
			return false;
		}

	}

}
