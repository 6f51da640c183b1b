package io.github.distlock.testing.example;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.bean.override.mockito.MockitoBean;

import io.github.distlock.LockLostException;
import io.github.distlock.testing.AutoConfigureDistLock;
import io.github.distlock.testing.DistLocks;
import io.github.distlock.testing.TakenLock;

import static io.github.distlock.testing.DistLockAssert.assertHeld;
import static io.github.distlock.testing.DistLockAssert.assertNotHeld;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.verify;

@SpringBootTest
@AutoConfigureDistLock
class OrderServiceLockTests {

	@Autowired
	OrderService orders;

	@Autowired
	Ledger ledger;

	@Autowired
	DistLocks locks;

	@MockitoBean
	PaymentGateway gateway;

	@Test
	void holdsTheOrderLockWhileItCharges() {
		doAnswer((call) -> {
			assertHeld("order", "42");
			return null;
		}).when(this.gateway).charge("42");

		this.orders.pay("42");

		verify(this.gateway).charge("42");
		assertNotHeld("order", "42");
	}

	@Test
	void failsWhenTheLockExpiresWhileItCharges() {
		doAnswer((call) -> {
			this.locks.expire("order", "42");
			return null;
		}).when(this.gateway).charge("42");

		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> this.orders.pay("42"));
	}

	@Test
	void cannotBookAfterAnotherHolderTookTheLock() {
		doAnswer((call) -> {
			TakenLock newHolder = this.locks.take("order", "42");
			this.ledger.record("42", newHolder.token());
			return null;
		}).when(this.gateway).charge("42");

		assertThatExceptionOfType(StaleTokenException.class).isThrownBy(() -> this.orders.pay("42"))
			.satisfies((stale) -> assertThat(stale.getSuppressed()).hasExactlyElementsOfTypes(LockLostException.class));
	}

}
