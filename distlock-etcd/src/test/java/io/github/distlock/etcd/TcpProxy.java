package io.github.distlock.etcd;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay on loopback between a client and one etcd member, which a test can cut: every connection is dropped
 * and no new one accepted, as when the client's machine dies or is cut off. Unlike closing the client, nothing the
 * client would still send (a revoke) reaches etcd.
 */
final class TcpProxy implements AutoCloseable {

	private final ServerSocket server;

	private final int targetPort;

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	private volatile boolean cut;

	TcpProxy(int targetPort) throws IOException {
		this.targetPort = targetPort;
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(this::accept, "tcp-proxy-" + this.server.getLocalPort());
		acceptor.setDaemon(true);
		acceptor.start();
	}

	/** Where the client connects. */
	String url() {
		return "http://127.0.0.1:" + this.server.getLocalPort();
	}

	private void accept() {
		while (!this.cut) {
			try {
				Socket client = this.server.accept();
				Socket target = new Socket(InetAddress.getLoopbackAddress(), this.targetPort);
				if (!relay(client, target)) {
					// Accepted while the link was being cut: a relay started now would outlive the cut.
					closeQuietly(client);
					closeQuietly(target);
				}
			}
			catch (IOException ex) {
				// Cut, or the target refused: the client sees a closed connection either way.
			}
		}
	}

	/** Starts relaying a pair of connections, unless the link is cut; atomic with {@link #cut}. */
	private synchronized boolean relay(Socket client, Socket target) {
		if (this.cut) {
			return false;
		}
		this.sockets.add(client);
		this.sockets.add(target);
		pump(client, target);
		pump(target, client);
		return true;
	}

	private void pump(Socket from, Socket to) {
		Thread thread = new Thread(() -> {
			byte[] buffer = new byte[16 * 1024];
			try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
				int read;
				while ((read = in.read(buffer)) >= 0) {
					out.write(buffer, 0, read);
					out.flush();
				}
			}
			catch (IOException ex) {
				// One side closed.
			}
			finally {
				closeQuietly(from);
				closeQuietly(to);
			}
		}, "tcp-proxy-pump");
		thread.setDaemon(true);
		thread.start();
	}

	/** Drops every connection and refuses new ones. */
	synchronized void cut() {
		this.cut = true;
		closeQuietly(this.server);
		this.sockets.forEach(TcpProxy::closeQuietly);
	}

	private static void closeQuietly(AutoCloseable closeable) {
		try {
			closeable.close();
		}
		catch (SocketException ex) {
			// Already closed.
		}
		catch (Exception ex) {
			// Nothing to do at the end of a test.
		}
	}

	@Override
	public void close() {
		cut();
	}

}
