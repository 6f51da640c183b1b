package io.github.distlock.autoconfigure.docs.snippets;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import io.github.distlock.DistributedLock;
import io.github.distlock.LockContext;

/** The README's five-minute guide and the annotation page: a locked, transactional method and its token. */
@Service
class PaymentService {

	private final Payments payments;

	PaymentService(Payments payments) {
		this.payments = payments;
	}

	@DistributedLock(key = "#order.id", lease = "10s", waitTime = "2s")
	@Transactional
	public void pay(Order order) {
		long token = LockContext.current().token();   // fencing token for downstream writes
		this.payments.charge(order, token);
	}

}
