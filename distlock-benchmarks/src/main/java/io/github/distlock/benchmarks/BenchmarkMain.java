package io.github.distlock.benchmarks;

public final class BenchmarkMain {
	public static void main(String[] args) {
	}
}
