package io.github.distlock.testing;

import org.springframework.test.context.TestContext;
import org.springframework.test.context.TestContextAnnotationUtils;
import org.springframework.test.context.support.AbstractTestExecutionListener;

/**
 * Around each test method of a test class with {@link AutoConfigureDistLock}: makes the context's {@link DistLocks}
 * the one {@link DistLockAssert} asks, and afterwards releases what {@link DistLocks#take} took, so that a lock
 * taken in one test is not found held in the next one sharing the context. Registered in
 * {@code META-INF/spring.factories}.
 */
class DistLockTestExecutionListener extends AbstractTestExecutionListener {

	@Override
	public void beforeTestMethod(TestContext testContext) {
		if (applies(testContext)) {
			CurrentDistLocks.enter(testContext.getApplicationContext().getBean(DistLocks.class));
		}
	}

	@Override
	public void afterTestMethod(TestContext testContext) {
		// A context that failed to load has nothing to release, and asking for it would only fail again.
		if (applies(testContext) && testContext.hasApplicationContext()) {
			DistLocks locks = testContext.getApplicationContext().getBean(DistLocks.class);
			try {
				locks.releaseTaken();
			}
			finally {
				CurrentDistLocks.leave(locks);
			}
		}
	}

	private static boolean applies(TestContext testContext) {
		return TestContextAnnotationUtils.hasAnnotation(testContext.getTestClass(), AutoConfigureDistLock.class);
	}

}
