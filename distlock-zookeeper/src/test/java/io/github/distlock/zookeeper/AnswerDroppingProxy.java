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
import java.util.concurrent.atomic.AtomicReference;

/**
 * A TCP relay on loopback between ZooKeeper clients and a server, which can lose one answer: once armed with a
 * marker (a node's path), it passes on the next request that carries it, lets the server apply it, then drops the
 * server's answer and cuts the connection, as a server that dies or a network that fails between applying a write
 * and answering it. The client reconnects through the relay, to the same session.
 */
final class AnswerDroppingProxy implements AutoCloseable {

	private final ServerSocket server;

	private final int targetPort;

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	private final AtomicReference<byte[]> marker = new AtomicReference<>();

	private volatile boolean closed;

	AnswerDroppingProxy(int targetPort) throws IOException {
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
					byte[] wanted = AnswerDroppingProxy.this.marker.get();
					if (wanted != null && contains(buffer, read, wanted)) {
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
					if (this.answerToDrop) {
						// The server has answered, so it has applied the request: lose the answer with the link.
						AnswerDroppingProxy.this.marker.set(null);
						this.client.close();
						this.target.close();
						return;
					}
					out.write(buffer, 0, read);
					out.flush();
				}
			}
			catch (IOException ex) {
				// Cut.
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
