package io.github.distlock.torture.run;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.options.GetOption;

import io.github.distlock.etcd.EtcdLockEngine;
import io.github.distlock.fixtures.etcd.EtcdMember;
import io.github.distlock.fixtures.etcd.TestEtcd;

/**
 * The etcd engine's lock store for a run: an etcd of the run's own, one member or a cluster of three (processes of the
 * machine's etcd binary, started by distlock-etcd's test fixture), the properties that point a worker at it, the
 * faults the run inflicts on it, and the keys it still holds.
 */
final class EtcdLockStore implements AutoCloseable {

	/** Where the workers' keys live: the engine's default root. */
	static final String ROOT = EtcdLockEngine.DEFAULT_ROOT + "/";

	private final TestEtcd etcd;

	/** A one-member etcd: the {@code etcd} store. */
	EtcdLockStore() throws Exception {
		this(1);
	}

	/** An etcd of so many members, answering once it has a leader. */
	EtcdLockStore(int members) throws Exception {
		this.etcd = TestEtcd.cluster(members);
	}

	/**
	 * The Spring properties that point a worker's etcd engine at the server: the instance lease's time to live
	 * bounds how long a dead worker keeps its locks, the connection timeout how long a connection attempt waits.
	 */
	List<String> workerArguments(Duration leaseTtl, Duration connectTimeout) {
		List<String> arguments = new ArrayList<>(List.of("--distlock.backend=etcd",
				"--spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
				"--distlock.etcd.endpoints=" + String.join(",", this.etcd.endpoints()),
				"--distlock.etcd.lease-ttl=" + leaseTtl.toMillis() + "ms",
				"--distlock.etcd.connect-timeout=" + connectTimeout.toMillis() + "ms",
				"--distlock.etcd.root=" + EtcdLockEngine.DEFAULT_ROOT));
		if (isCluster()) {
			// The engine sends a call again after an election timeout, as its leader may have died: told the cluster's.
			arguments.add("--distlock.etcd.election-timeout=" + TestEtcd.ELECTION_TIMEOUT.toMillis() + "ms");
		}
		return arguments;
	}

	boolean isCluster() {
		return this.etcd.members().size() > 1;
	}

	/** The cluster's leader, for the {@code leader_kill} fault. */
	LeaderEnsemble ensemble() {
		if (!isCluster()) {
			throw new IllegalStateException("A one-member etcd has no leader to kill and no one to elect another");
		}
		return new EtcdEnsemble(this.etcd);
	}

	List<String> endpoints() {
		return this.etcd.endpoints();
	}

	long pid() {
		return member().pid();
	}

	/**
	 * SIGSTOP the server for the duration, then SIGCONT: leases whose time to live passed meanwhile end when it
	 * resumes, unless their keep-alives are served first.
	 */
	void pause(Duration duration) throws InterruptedException {
		freeze();
		try {
			TimeUnit.MILLISECONDS.sleep(duration.toMillis());
		}
		finally {
			thaw();
		}
	}

	/** SIGSTOP: the server's sockets stay open, and nothing answers. */
	void freeze() throws InterruptedException {
		signal(EtcdMember::freeze, "stop");
	}

	/** SIGCONT after {@link #freeze()}. */
	void thaw() throws InterruptedException {
		signal(EtcdMember::thaw, "continue");
	}

	/** SIGKILL the server and start it again on the same ports and data; returns once it answers again. */
	void restart() throws InterruptedException {
		signal(EtcdMember::restart, "restart");
	}

	private void signal(MemberAction action, String what) throws InterruptedException {
		try {
			action.apply(member());
		}
		catch (InterruptedException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not " + what + " the etcd server (pid " + pid() + "): "
					+ ex.getMessage(), ex);
		}
	}

	@FunctionalInterface
	private interface MemberAction {

		void apply(EtcdMember member) throws Exception;

	}

	/**
	 * Every key under the root, as its path below it: lock holders and waiters whose instance lease still lives,
	 * and marks of abandoned acquisitions, which live on their lease too.
	 */
	List<String> heldKeys() {
		ByteSequence root = ByteSequence.from(ROOT, StandardCharsets.UTF_8);
		try {
			return this.etcd.admin()
				.getKVClient()
				.get(root, GetOption.builder().isPrefix(true).withKeysOnly(true).build())
				.get(10, TimeUnit.SECONDS)
				.getKvs()
				.stream()
				.map((kv) -> kv.getKey().toString(StandardCharsets.UTF_8).substring(ROOT.length()))
				.toList();
		}
		catch (Exception ex) {
			if (ex instanceof InterruptedException) {
				Thread.currentThread().interrupt();
			}
			throw new IllegalStateException("Could not read the lock keys under " + ROOT + ": " + ex.getMessage(), ex);
		}
	}

	private EtcdMember member() {
		return this.etcd.members().get(0);
	}

	@Override
	public void close() {
		this.etcd.close();
	}

}
