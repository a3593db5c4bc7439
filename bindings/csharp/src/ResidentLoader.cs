using System;
using System.Collections;
using System.Collections.Generic;

namespace Ferry {

/// <summary>Epochs of batches gathered from a resident Dataset, the way PyTorch's DataLoader with a
/// DistributedSampler walks one: each enumeration is one epoch in the order Dataset.Epoch gives for
/// (Seed, Epoch), cut into batches of BatchSize (the last one shorter, or dropped with DropLast), each
/// gathered Depth ahead of the one yielded so the device is never waiting on the loop.
/// <para>With the Transform's Augment set, batch b of epoch e draws at Step s + e * Count + b, s the
/// Augment's own Step (0 unless set): every batch draws anew, and a run reproduces (or resumes at an
/// epoch) exactly, as the Python binding's loader does. The loader sets that Step on the Augment for
/// each gather and puts s back after it, so an Augment serves one enumeration at a time.</para>
/// <code>
/// var loader = new ResidentLoader(dataset, 256) { Shuffle = true, Seed = 42, Transform = t, Labels = labels };
/// for (long epoch = 0; epoch &lt; epochs; ++epoch) {
///   loader.SetEpoch(epoch);
///   foreach (ResidentLoader.Item item in loader) using (item) { item.Batch.Wait(); Train(item.Batch, item.Labels); }
/// }
/// </code>
/// Settings take effect at the next enumeration. Leaving a foreach early (break, an exception)
/// disposes the enumerator, which waits for the gathers in flight and releases them. One enumeration
/// per thread (the Dataset is thread-safe).</summary>
public sealed class ResidentLoader : IEnumerable<ResidentLoader.Item> {
  readonly Dataset dataset;
  readonly long epochSize, sourceCount;
  long epoch;
  long[] labels;
  int depth = 2;

  /// <summary>Batches of batchSize samples of dataset: shuffled, the last batch kept, until set otherwise.</summary>
  public ResidentLoader(Dataset dataset, long batchSize) {
    if (dataset == null) throw new InvalidArgumentException("dataset is null: a Dataset is required");
    if (batchSize < 1) throw new InvalidArgumentException("batchSize is " + batchSize + ": 1 or more samples a batch");
    using (DatasetInfo info = dataset.Info()) {
      epochSize = info.EpochSize;
      sourceCount = info.SourceCount;
    }
    this.dataset = dataset;
    BatchSize = batchSize;
    Shuffle = true;
  }

  public long BatchSize { get; private set; }
  /// <summary>A permutation per epoch (true, the default), or the dataset's order (false).</summary>
  public bool Shuffle { get; set; }
  /// <summary>Drops the last batch where it would be short of BatchSize (default false).</summary>
  public bool DropLast { get; set; }
  /// <summary>The permutations' seed: the same on every rank of a job (default 0).</summary>
  public ulong Seed { get; set; }
  /// <summary>How each batch converts (null: the defaults); its Augment draws per batch as the class says.</summary>
  public Transform Transform { get; set; }
  /// <summary>The gathers' hand-off stream, priority (null: the defaults).</summary>
  public SubmitOptions Options { get; set; }

  /// <summary>The epoch the next enumeration walks (default 0): SetEpoch.</summary>
  public long Epoch { get { return epoch; } }

  /// <summary>As DistributedSampler.set_epoch: call it before each epoch.</summary>
  public void SetEpoch(long epoch) {
    if (epoch < 0) throw new InvalidArgumentException("epoch is " + epoch + ": 0 or more");
    this.epoch = epoch;
  }

  /// <summary>One label per source sample (null: none): each item carries those of its samples.</summary>
  public long[] Labels {
    get { return labels == null ? null : (long[])labels.Clone(); }
    set {
      if (value != null && value.LongLength != sourceCount)
        throw new InvalidArgumentException("labels has " + value.LongLength + " entries but the dataset was built from " +
                                           sourceCount + " samples: one label per source sample");
      labels = value == null ? null : (long[])value.Clone();
    }
  }

  /// <summary>Gathers in flight ahead of the batch yielded, 1 or more (default 2).</summary>
  public int Depth {
    get { return depth; }
    set {
      if (value < 1) throw new InvalidArgumentException("depth is " + value + ": the gathers kept in flight ahead, 1 or more");
      depth = value;
    }
  }

  /// <summary>Batches per epoch: this rank's EpochSize samples in BatchSize batches, the short last
  /// one unless DropLast.</summary>
  public long Count { get { return DropLast ? epochSize / BatchSize : (epochSize + BatchSize - 1) / BatchSize; } }

  /// <summary>The batches of the epoch set last. The order is drawn here, the gathers as it moves.</summary>
  public IEnumerator<Item> GetEnumerator() {
    long[] order = dataset.Epoch(Seed, (ulong)epoch, Shuffle);
    return Run(order, epoch, Count, BatchSize, Transform, Options, labels, depth);
  }

  IEnumerator IEnumerable.GetEnumerator() { return GetEnumerator(); }

  IEnumerator<Item> Run(long[] order, long epochNumber, long count, long batchSize, Transform transform,
                        SubmitOptions options, long[] batchLabels, int ahead) {
    var pending = new Queue<Item>();
    long gathered = 0;
    try {
      while (true) {
        while (pending.Count < ahead + 1 && gathered < count) {  // the one to yield plus depth ahead
          long start = gathered * batchSize;
          var indices = new long[Math.Min(batchSize, order.LongLength - start)];
          Array.Copy(order, start, indices, 0, indices.LongLength);
          pending.Enqueue(Gather(indices, epochNumber, gathered++, count, transform, options, batchLabels));
        }
        if (pending.Count == 0) yield break;
        yield return pending.Dequeue();
      }
    } finally {
      while (pending.Count > 0) Prefetching.Finish(pending.Dequeue().Batch);
    }
  }

  Item Gather(long[] indices, long epochNumber, long number, long count, Transform transform, SubmitOptions options,
              long[] batchLabels) {
    var sources = new long[indices.LongLength];
    for (long i = 0; i < sources.LongLength; ++i) sources[i] = dataset.SourceIndex(indices[i]);
    long[] itemLabels = null;
    if (batchLabels != null) {
      itemLabels = new long[sources.LongLength];
      for (long i = 0; i < sources.LongLength; ++i) itemLabels[i] = batchLabels[sources[i]];
    }
    Augment augment = transform == null ? null : transform.Augment;
    ulong first = augment == null ? 0 : augment.Step;
    ulong step = first + (ulong)(epochNumber * count + number);
    if (augment != null) augment.Step = step;  // read by the gather, during the call
    try {
      return new Item(dataset.Gather(indices, transform, null, options), indices, sources, itemLabels, epochNumber,
                      number, step);
    } catch (FerryException e) {
      throw e.Within("batch " + number + " of epoch " + epochNumber);
    } finally {
      if (augment != null) augment.Step = first;
    }
  }

  /// <summary>One batch: its Batch (to Wait on, read, dispose) and which samples it holds. Disposing
  /// it releases the Batch.</summary>
  public sealed class Item : IDisposable {
    internal Item(Batch batch, long[] indices, long[] sourceIndices, long[] labels, long epoch, long number, ulong step) {
      Batch = batch;
      this.indices = indices;
      this.sourceIndices = sourceIndices;
      this.labels = labels;
      Epoch = epoch;
      Number = number;
      Step = step;
    }

    readonly long[] indices, sourceIndices, labels;

    /// <summary>The gather, submitted: Wait() before reading its output.</summary>
    public Batch Batch { get; private set; }
    /// <summary>The dataset indices of its samples, in output order.</summary>
    public long[] Indices { get { return (long[])indices.Clone(); } }
    /// <summary>The source samples they hold (Dataset.SourceIndex).</summary>
    public long[] SourceIndices { get { return (long[])sourceIndices.Clone(); } }
    /// <summary>Their labels (the loader's Labels at SourceIndices), or null where it has none.</summary>
    public long[] Labels { get { return labels == null ? null : (long[])labels.Clone(); } }
    public long Epoch { get; private set; }
    /// <summary>The batch's place in its epoch, from 0.</summary>
    public long Number { get; private set; }
    /// <summary>The Augment's Step for this batch: its own Step + Epoch * Count + Number.</summary>
    public ulong Step { get; private set; }

    public void Dispose() { Batch.Dispose(); }

    public override string ToString() {
      return "Item(epoch " + Epoch + ", batch " + Number + ", " + indices.Length + " samples, " + Batch + ")";
    }
  }
}

}
