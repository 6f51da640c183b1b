package io.github.distlock;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LockLostExceptionTests {

	/** Thrown also where no transaction ran: the message must not say that one was held back. */
	@Test
	void theMessageNamesTheLockAndClaimsNoTransactionThatMayNotHaveRun() {
		LockLostException lost = new LockLostException("orders", "42", 7, LostLock.Reason.LEASE_EXPIRED);
		assertThat(lost.getMessage()).contains("Lock 'orders' for key '42' (token 7)")
			.contains("LEASE_EXPIRED")
			.contains("A transaction it ran in, if any, was not committed")
			.doesNotContain("and a transaction it ran was not committed");
	}

}
