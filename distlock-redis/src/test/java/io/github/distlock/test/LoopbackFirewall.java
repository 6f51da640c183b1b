package io.github.distlock.test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distlock.testsupport.HostBinary;

/**
 * Cuts traffic on loopback with iptables, for tests of a link that fails without either end noticing: packets from
 * a port are dropped, not refused, until {@link #close}.
 */
public final class LoopbackFirewall implements AutoCloseable {

	private final List<List<String>> rules = new ArrayList<>();

	/** Drops the TCP packets one connection's server port sends to its client port, as a cut cable would. */
	public LoopbackFirewall dropFromTo(int serverPort, int clientPort) {
		List<String> rule = List.of("INPUT", "-i", "lo", "-p", "tcp", "--sport", String.valueOf(serverPort),
				"--dport", String.valueOf(clientPort), "-j", "DROP");
		iptables("-I", rule);
		this.rules.add(rule);
		return this;
	}

	@Override
	public void close() {
		for (List<String> rule : this.rules) {
			iptables("-D", rule);
		}
		this.rules.clear();
	}

	private static void iptables(String action, List<String> rule) {
		List<String> arguments = new ArrayList<>();
		arguments.add(action);
		arguments.addAll(rule);
		HostBinary iptables = HostBinary.of("iptables", "usr/sbin/iptables-nft", "iptables", "libnftnl11",
				"libxtables12");
		try {
			Process process = iptables.processBuilder(arguments).redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes());
			if (!process.waitFor(10, TimeUnit.SECONDS) || process.exitValue() != 0) {
				throw new IllegalStateException("iptables " + String.join(" ", arguments) + " failed: "
						+ output.strip() + " (these tests need root and iptables on loopback)");
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("iptables could not be run (" + ex.getMessage() + "): install it with "
					+ "'apt-get install -y iptables' and run the tests as root", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
