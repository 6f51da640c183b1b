package io.github.distlock.interceptor;

import java.lang.reflect.Method;
import java.util.function.Function;
import java.util.function.Supplier;

import io.micrometer.observation.ObservationRegistry;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.execution.LockExecution;
import io.github.distlock.leader.LeaderElection;

/**
 * Runs a {@link io.github.distlock.leader.LeaderOnly} method inside a share of the election's current term, where
 * this instance leads, and skips it elsewhere. The call runs through a lock execution of its own, so what a
 * {@code @DistributedLock} method gets it gets too: the token in {@link io.github.distlock.LockContext}, a loss
 * handled as {@code onLost} says, a stage or a subscription keeping the share until it completes.
 */
public class LeaderOnlyInterceptor implements MethodInterceptor {

	private final LeaderOnlySource operations;

	private final LockExecution execution;

	/**
	 * @param elections the election this instance stands in, by name, or null for one it does not; asked per call
	 * @param observationRegistry supplies the registry that the calls are observed with
	 */
	public LeaderOnlyInterceptor(LeaderOnlySource operations, Function<String, @Nullable LeaderElection> elections,
			Supplier<ObservationRegistry> observationRegistry) {
		this.operations = operations;
		LeaderTermLocks terms = new LeaderTermLocks(elections);
		this.execution = new LockExecution(() -> terms, observationRegistry);
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Method method = invocation.getMethod();
		Object target = invocation.getThis();
		LeaderOnlyOperation operation = this.operations.getOperation(method,
				(target != null) ? AopUtils.getTargetClass(target) : null);
		if (operation == null) {
			return invocation.proceed();
		}
		LockRequest request = operation.request();
		ProceedingInvocation proceeding = new ProceedingInvocation(invocation);
		// The flag first: without Reactor the reactive call's class is never loaded.
		if (LockOperationSource.REACTOR_PRESENT && operation.call() instanceof ReactiveLockedCall reactive) {
			// Led or not is asked per subscription, when the work would start.
			return reactive.call(this.execution, request, operation.onLost(), null, proceeding,
					(notLeading) -> operation.skipped());
		}
		StartedInvocation started = new StartedInvocation(proceeding);
		try {
			return operation.call().call(this.execution, request, operation.onLost(), started);
		}
		catch (LockAcquisitionException ex) {
			if (started.started || !LockFailureRecovery.isBusy(ex)) {
				// Thrown by the method itself, for a lock of its own.
				throw ex;
			}
			return operation.skipped();
		}
	}

}
