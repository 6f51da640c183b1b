package io.github.distlock.torture.worker;

import io.github.distlock.DistributedLock;
import io.github.distlock.LockContext;

/**
 * The code under test, used as an application would: a bean whose public method is annotated.
 */
public class CriticalSection {

	private final SectionBody body;

	public CriticalSection(SectionBody body) {
		this.body = body;
	}

	@DistributedLock(name = "torture", key = "#section.key", lease = "${torture.lease}",
			waitTime = "${torture.wait-time}")
	public void run(Section section) {
		this.body.run(section, LockContext.current().token());
	}

}
