package io.github.distlock.autoconfigure;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * Tells, when a ZooKeeper client could not connect, whether anything listens at the addresses it was given: "nothing
 * listens" and "did not answer" call for different fixes (start a server, or look at the network or the server).
 */
final class ZooKeeperListeners {

	/** Long enough for a listener on a LAN to accept; this runs only on the way to a failed start-up. */
	private static final int PROBE_MILLIS = 500;

	private ZooKeeperListeners() {
	}

	/**
	 * The addresses of a connect string ({@code host:port,host:port/chroot}) where nothing accepts a connection, or an
	 * empty list when something listens at one of them at least.
	 */
	static List<String> silent(String connectString) {
		List<String> silent = new ArrayList<>();
		int chroot = connectString.indexOf('/');
		String hosts = (chroot >= 0) ? connectString.substring(0, chroot) : connectString;
		for (String address : hosts.split(",")) {
			String hostAndPort = address.strip();
			int colon = hostAndPort.lastIndexOf(':');
			String host = (colon >= 0) ? hostAndPort.substring(0, colon) : hostAndPort;
			int port;
			try {
				port = (colon >= 0) ? Integer.parseInt(hostAndPort.substring(colon + 1)) : 2181;
			}
			catch (NumberFormatException ex) {
				silent.add(hostAndPort);
				continue;
			}
			try (Socket socket = new Socket()) {
				socket.connect(new InetSocketAddress(host, port), PROBE_MILLIS);
				return List.of();
			}
			catch (IOException ex) {
				silent.add(hostAndPort);
			}
		}
		return silent;
	}

}
