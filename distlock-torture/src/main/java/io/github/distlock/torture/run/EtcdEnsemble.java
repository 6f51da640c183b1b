package io.github.distlock.torture.run;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

import io.etcd.jetcd.maintenance.StatusResponse;

import io.github.distlock.fixtures.etcd.EtcdMember;
import io.github.distlock.fixtures.etcd.TestEtcd;

/**
 * The leader of a test fixture's etcd cluster, found and killed. The leader is what the members' status
 * ({@code Maintenance.statusMember}, etcd's {@code /etcdserverpb.Maintenance/Status}) names: its leader id against
 * each member's own id (from the same answer's header). A member started again on its data directory keeps its id,
 * so the ids are read once.
 */
final class EtcdEnsemble implements LeaderEnsemble {

	/**
	 * How long the survivors may take to elect, and the killed member to come back: far more than they take (an
	 * election timeout of 500 ms, a start of about a second), so that only a broken ensemble fails the run.
	 */
	private static final Duration DEADLINE = Duration.ofSeconds(30);

	private static final Duration STATUS_TIMEOUT = Duration.ofSeconds(1);

	private final TestEtcd etcd;

	private List<Long> memberIds;

	EtcdEnsemble(TestEtcd etcd) {
		this.etcd = etcd;
	}

	@Override
	public LeaderKill killLeader() throws InterruptedException {
		List<Long> ids = memberIds();
		int leader = Polling.until("etcd leader", DEADLINE, () -> agreedLeader(allMembers()).stream()
			.mapToObj(ids::indexOf)
			.filter((index) -> index >= 0)
			.findFirst());
		EtcdMember victim = this.etcd.members().get(leader);
		long pid = victim.pid();
		long killedAt = System.nanoTime();
		victim.kill();
		List<Integer> survivors = new ArrayList<>(allMembers());
		survivors.remove(Integer.valueOf(leader));
		long oldLeaderId = ids.get(leader);
		int elected = Polling.until("new etcd leader among " + survivors, DEADLINE,
				() -> agreedLeader(survivors).stream()
					.filter((id) -> id != oldLeaderId)
					.mapToObj(ids::indexOf)
					.filter((index) -> index >= 0)
					.findFirst());
		long electedAt = System.nanoTime();
		restart(victim);
		// Back in the cluster: it answers a linearizable read (restart() waits for that), and now every member, it too,
		// names the same leader.
		Polling.until("etcd member " + leader + " following the new leader", DEADLINE,
				() -> agreedLeader(allMembers()).isPresent() ? Optional.of(true) : Optional.empty());
		long rejoinedAt = System.nanoTime();
		return new LeaderKill(pid, "m" + leader, "m" + elected, electedAt - killedAt, rejoinedAt - killedAt);
	}

	@Override
	public String faultTarget() {
		return "etcd";
	}

	/** Starts the killed member again (same command, ports and data directory) and waits until it answers a read. */
	private static void restart(EtcdMember member) throws InterruptedException {
		try {
			member.restart();
		}
		catch (InterruptedException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not start the killed etcd leader again: " + ex.getMessage(), ex);
		}
	}

	/** The leader id every one of these members names, if they all answer and agree on one. */
	private OptionalLong agreedLeader(List<Integer> members) {
		long agreed = 0;
		for (int member : members) {
			Optional<StatusResponse> status = status(member);
			if (status.isEmpty() || status.get().getLeader() == 0
					|| (agreed != 0 && status.get().getLeader() != agreed)) {
				return OptionalLong.empty();
			}
			agreed = status.get().getLeader();
		}
		return OptionalLong.of(agreed);
	}

	private Optional<StatusResponse> status(int member) {
		try {
			return Optional.of(this.etcd.admin()
				.getMaintenanceClient()
				.statusMember(this.etcd.endpoints().get(member))
				.get(STATUS_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return Optional.empty();
		}
		catch (Exception ex) {
			// Down, or not answering yet: asked again.
			return Optional.empty();
		}
	}

	private List<Integer> allMembers() {
		List<Integer> all = new ArrayList<>();
		for (int i = 0; i < this.etcd.members().size(); i++) {
			all.add(i);
		}
		return all;
	}

	/** Each member's id, in the order of the endpoints, asked of each member once. */
	private List<Long> memberIds() throws InterruptedException {
		if (this.memberIds == null) {
			List<Long> ids = new ArrayList<>();
			for (int member : allMembers()) {
				ids.add(Polling.until("status of etcd member " + member, DEADLINE,
						() -> status(member).map((status) -> status.getHeader().getMemberId())));
			}
			this.memberIds = List.copyOf(ids);
		}
		return this.memberIds;
	}

}
