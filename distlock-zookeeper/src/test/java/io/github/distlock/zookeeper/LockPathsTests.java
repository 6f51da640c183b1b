package io.github.distlock.zookeeper;

import java.util.List;

import org.apache.curator.utils.PathUtils;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LockPathsTests {

	private final LockPaths paths = new LockPaths("/distlock");

	@Test
	void escapedElementsAreValidPathsAndDistinct() {
		List<String> keys = List.of("a/b", "a%2Fb", "a", "", "%", ".", "..", "x:y", "{tag}", "line\r\nbreak",
				"\u0000", "\uD83D\uDD12", "\uFFFF", "k".repeat(1024));
		for (String key : keys) {
			PathUtils.validatePath(this.paths.lockDirectory("name", key));
		}
		assertThat(keys.stream().map(LockPaths::escape).distinct()).hasSameSizeAs(keys);
		assertThat(this.paths.lockDirectory("a/b", "c")).isNotEqualTo(this.paths.lockDirectory("a", "b/c"));
		assertThat(LockPaths.escape("a/b")).isEqualTo("a%2Fb");
		assertThat(LockPaths.escape("order-42_x")).isEqualTo("order-42_x");
	}

	@Test
	void queueOrderIsBySequenceNotByProtectionPrefix() {
		assertThat(LockQueue.sequence("_c_9f1e-lock-0000000012")).isEqualTo("0000000012");
		assertThat(LockQueue.sequence("_c_0000-lock-0000000013")).isGreaterThan("0000000012");
	}

}
