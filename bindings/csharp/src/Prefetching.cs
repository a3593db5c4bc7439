using System.Collections.Generic;

namespace Ferry {

/// <summary>Context.Prefetch (issue 11): the batches of a sequence of sources, depth submitted
/// ahead of the one the enumeration yields, the way tf.data's prefetch and timm's PrefetchLoader
/// keep a pipeline full. Each source may describe a different shape. The yielded Batch is the
/// caller's to Wait() on and Dispose(). A source's memory must stay unchanged until its batch's
/// source is reusable (an engine rewriting one buffer per frame needs depth + 1 buffers in turn).
/// Leaving a foreach early (break, an exception) disposes the enumerator, which waits for the
/// batches submitted and not yet yielded and releases them; an exception from the sources or a
/// submit does the same before it reaches the caller. One enumeration per consumer thread (the
/// context is thread-safe). With an Augment, each batch draws at its Step as it is submitted and the
/// Step then advances by one; leaving the enumeration sets it back by the batches submitted ahead
/// and never yielded.</summary>
static class Prefetching {
  internal static IEnumerable<Batch> Checked(Context context, IEnumerable<Source> sources, Transform transform,
                                             Augment augment, SubmitOptions options, int depth) {
    // Checked at the call, not at the first MoveNext (an iterator method runs lazily).
    if (sources == null) throw new InvalidArgumentException("sources is null: a sequence of Source is required");
    if (depth < 1) {
      throw new InvalidArgumentException("depth is " + depth +
                                         ": the batches kept in flight ahead, 1 or more (2 is the usual)");
    }
    return Run(context, sources, transform, augment, options, depth);
  }

  static IEnumerable<Batch> Run(Context context, IEnumerable<Source> sources, Transform transform, Augment augment,
                                SubmitOptions options, int depth) {
    var pending = new Queue<Batch>();
    long submitted = 0;
    Transform own = augment != null && transform == null ? new Transform() : null;
    using (IEnumerator<Source> it = sources.GetEnumerator()) {
      try {
        while (true) {
          while (pending.Count < depth + 1 && it.MoveNext()) {  // the one to yield plus depth ahead
            pending.Enqueue(Submit(context, it.Current, own ?? transform, augment, options, submitted++));
          }
          if (pending.Count == 0) yield break;
          yield return pending.Dequeue();
        }
      } finally {
        // The batches never yielded give their steps back: the Augment's Step is the next one to draw.
        if (augment != null && Augment.IsLive(augment)) augment.Step -= (ulong)pending.Count;
        while (pending.Count > 0) Finish(pending.Dequeue());
        if (own != null) own.Dispose();
      }
    }
  }

  static Batch Submit(Context context, Source source, Transform transform, Augment augment, SubmitOptions options,
                      long index) {
    try {
      if (augment == null) return context.Submit(source, transform, null, options);
      // The transform holds the Augment for this submit; the Step advances once it succeeded.
      Augment held = transform.Augment;
      transform.Augment = augment;
      try {
        Batch batch = context.Submit(source, transform, null, options);
        augment.Step += 1;
        return batch;
      } finally {
        transform.Attach(held);
      }
    } catch (FerryException e) {
      throw e.Within("batch " + index + " from the sources");
    }
  }

  /// <summary>Waits for a batch and releases it; its error, if any, is not the one to report.</summary>
  internal static void Finish(Batch batch) {
    try {
      batch.Wait();
    } catch (FerryException) {
      // finished all the same
    } finally {
      batch.Dispose();
    }
  }
}

}
