package io.github.distlock.autoconfigure.docs.snippets;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

import io.github.distlock.DistributedLockTemplate;
import io.github.distlock.LockAttempt;
import io.github.distlock.LockSpec;
import io.github.distlock.autoconfigure.docs.snippets.Payments.Receipt;

/** The programmatic-use page: the template's three ways to run work under a lock. */
class TemplateUsage {

	/** Stock fenced by token. */
	interface Stock {

		void take(Order order, long token);

	}

	/** A report that takes long to build. */
	record Report(String text) {
	}

	/** Builds the report. */
	interface ReportBuilder {

		Report build();

	}

	private final DistributedLockTemplate locks;

	private final Stock stock;

	private final ReportBuilder report;

	private final Payments payments;

	TemplateUsage(DistributedLockTemplate locks, Stock stock, ReportBuilder report, Payments payments) {
		this.locks = locks;
		this.stock = stock;
		this.report = report;
		this.payments = payments;
	}

	CompletionStage<Receipt> sell(Order order) {
		LockSpec spec = LockSpec.of("orders", order.id()).withLease(Duration.ofSeconds(10));

		long token = locks.execute(spec, (lock) -> {        // LockAcquisitionException when not acquired
			stock.take(order, lock.token());
			return lock.token();
		});

		LockAttempt<Report> attempt = locks.tryExecute(spec.withWaitTime(Duration.ZERO), (lock) -> report.build());
		if (!attempt.isAcquired()) { return null; }                  // someone else holds it: the work did not run

		CompletionStage<Receipt> receipt = locks.executeAsync(spec, () -> payments.chargeAsync(order));
		return (token > 0) ? receipt : null;
	}

}
