//! Criterion benches of the crowd workloads (`cargo bench -p steerkit-bench`); `steerkit bench`
//! reports the same workloads as agent-updates per second.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use steerkit_bench::workloads;

fn crowd(c: &mut Criterion) {
    let mut group = c.benchmark_group("crowd");
    group.sample_size(10);
    for w in workloads(true) {
        let mut world = w.build();
        group.throughput(Throughput::Elements(w.agents as u64));
        group.bench_function(format!("{}/{}", w.name, w.agents), |b| {
            b.iter(|| world.step());
        });
    }
    group.finish();
}

criterion_group!(benches, crowd);
criterion_main!(benches);
