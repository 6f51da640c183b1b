package io.github.distlock.autoconfigure.docs.snippets;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

import io.github.distlock.LockContext;
import io.github.distlock.leader.LeaderOnly;

/** The leader election page: a scheduled job that only the leader of its election runs, fenced by the epoch. */
@Component
class NightlyBilling {

	/** Issues invoices, refusing writes with an epoch older than the largest it has seen. */
	interface Invoices {

		void issueAll(long epoch);

	}

	private final Invoices invoices;

	NightlyBilling(Invoices invoices) {
		this.invoices = invoices;
	}

	@Scheduled(cron = "0 0 2 * * *")
	@LeaderOnly("nightly-billing")
	public void bill() {
		long epoch = LockContext.current().token();
		this.invoices.issueAll(epoch);
	}

}
