using System;
using System.Collections.Generic;
using System.Linq;
using NUnit.Framework;

namespace Ferry.Tests {

/// <summary>ResidentLoader: epochs of gathers from a Dataset, depth ahead, with labels and per-batch
/// augmentation.</summary>
[TestFixture]
public class ResidentLoaderTests {
  const long Sample = DatasetTests.Sample;

  /// <summary>Every item of one enumeration: its dataset indices, in order; the items are disposed.</summary>
  static List<long[]> IndicesOf(ResidentLoader loader) {
    var batches = new List<long[]>();
    foreach (ResidentLoader.Item item in loader) {
      using (item) {
        Assert.AreEqual(batches.Count, item.Number);
        batches.Add(item.Indices);
      }
    }
    return batches;
  }

  static long[] Concat(List<long[]> batches) { return batches.SelectMany(b => b).ToArray(); }

  static ulong Submitted(Context ctx) {
    using (Stats stats = ctx.Stats()) return stats.BatchesSubmitted;
  }

  static ulong Unreleased(Context ctx) {
    using (Stats stats = ctx.Stats()) return stats.BatchesUnreleased;
  }

  [Test]
  public void AnEpochIsTheDatasetsOrderCutIntoBatches() {
    using (Context ctx = FerryTests.CpuContext())
    using (Dataset ds = DatasetTests.MakeDataset(ctx, DatasetTests.RandomBytes(10 * Sample, 20))) {
      var loader = new ResidentLoader(ds, 4) { Shuffle = true, Seed = 5 };
      loader.SetEpoch(2);
      Assert.AreEqual(3, loader.Count);
      List<long[]> batches = IndicesOf(loader);
      Assert.AreEqual(new[] { 4, 4, 2 }, batches.Select(b => b.Length).ToArray());
      Assert.AreEqual(ds.Epoch(5, 2, true), Concat(batches));
      loader.DropLast = true;
      Assert.AreEqual(2, loader.Count);
      Assert.AreEqual(ds.Epoch(5, 2, true).Take(8).ToArray(), Concat(IndicesOf(loader)));
      loader.Shuffle = false;
      Assert.AreEqual(new long[] { 0, 1, 2, 3, 4, 5, 6, 7 }, Concat(IndicesOf(loader)));
    }
  }

  [Test]
  public void EpochsAreReproducibleAndEachCoversTheDataset() {
    using (Context ctx = FerryTests.CpuContext())
    using (Dataset ds = DatasetTests.MakeDataset(ctx, DatasetTests.RandomBytes(12 * Sample, 21))) {
      var a = new ResidentLoader(ds, 5) { Shuffle = true, Seed = 9 };
      var b = new ResidentLoader(ds, 5) { Shuffle = true, Seed = 9 };
      long[] first = Concat(IndicesOf(a));
      Assert.AreEqual(first, Concat(IndicesOf(b)));  // another loader, the same seed and epoch
      a.SetEpoch(1);
      long[] second = Concat(IndicesOf(a));
      Assert.AreNotEqual(first, second);
      Assert.AreEqual(Enumerable.Range(0, 12).Select(i => (long)i).ToArray(), second.OrderBy(i => i).ToArray());
      Assert.AreEqual(1, a.Epoch);
    }
  }

  [Test]
  public void ItemsCarryTheLabelsAndPixelsOfTheirSourceSamples() {
    byte[] data = DatasetTests.RandomBytes(10 * Sample, 22);
    long[] labels = Enumerable.Range(0, 10).Select(i => 100L + 7 * i).ToArray();
    using (Context ctx = FerryTests.CpuContext())
    using (var o = new DatasetOptions { Placement = DatasetPlacement.Shard, Rank = 2, WorldSize = 3 })
    using (Dataset ds = DatasetTests.MakeDataset(ctx, data, o))  // dataset index i holds source sample 2 + 3 i
    using (Transform copy = DatasetTests.Uint8Nhwc()) {
      var loader = new ResidentLoader(ds, 3) { Shuffle = true, Transform = copy, Labels = labels };
      int items = 0;
      foreach (ResidentLoader.Item item in loader) {
        using (item) {
          long[] sources = item.SourceIndices;
          Assert.AreEqual(item.Indices.Select(i => ds.SourceIndex(i)).ToArray(), sources);
          Assert.AreEqual(sources.Select(s => labels[s]).ToArray(), item.Labels);
          Assert.AreEqual(DatasetTests.Pick(data, sources), DatasetTests.BytesOf(item.Batch));
          items++;
        }
      }
      Assert.AreEqual(2, items);  // ceil(10 / 3) = 4 samples in batches of 3
      DatasetTests.AssertFerry<InvalidArgumentException>("labels has 4 entries", () => loader.Labels = new long[4]);
      loader.Labels = null;
      foreach (ResidentLoader.Item item in loader) {
        using (item) Assert.IsNull(item.Labels);
      }
    }
  }

  [Test]
  public void EachBatchDrawsAtItsOwnStepAndRunsReproduce() {
    using (Context ctx = FerryTests.CpuContext())
    using (Dataset ds = DatasetTests.MakeDataset(ctx, DatasetTests.RandomBytes(8 * Sample, 23)))
    using (Augment a = DatasetTests.CropFlipJitter(100))
    using (Augment check = DatasetTests.CropFlipJitter(0))
    using (var t = new Transform().SetResize(4, 4))
    using (var reference = new Transform().SetResize(4, 4)) {
      t.Augment = a;
      reference.Augment = check;
      var loader = new ResidentLoader(ds, 3) { Shuffle = true, Seed = 1, Transform = t };
      var run = new List<byte[]>();
      for (long epoch = 0; epoch < 2; ++epoch) {
        loader.SetEpoch(epoch);
        foreach (ResidentLoader.Item item in loader) {
          using (item) {
            Assert.AreEqual((ulong)(100 + epoch * 3 + item.Number), item.Step);  // the Augment's Step first
            byte[] bytes = DatasetTests.BytesOf(item.Batch);
            check.Step = item.Step;  // the same indices gathered at that step by hand
            Assert.AreEqual(DatasetTests.BytesOf(ds.Gather(item.Indices, reference)), bytes, item.ToString());
            run.Add(bytes);
          }
        }
      }
      Assert.AreEqual(6, run.Count);
      Assert.AreEqual(100UL, a.Step);  // put back after each gather
      loader.SetEpoch(0);
      using (IEnumerator<ResidentLoader.Item> again = loader.GetEnumerator()) {  // a second run: the same first batch
        Assert.IsTrue(again.MoveNext());
        Assert.AreEqual(run[0], DatasetTests.BytesOf(again.Current.Batch));
      }
      // One batch of every sample in order: the epochs differ only by their steps, and draw differently.
      var whole = new ResidentLoader(ds, 8) { Shuffle = false, Transform = t };
      byte[] epoch0 = DatasetTests.BytesOf(whole.First().Batch);
      whole.SetEpoch(1);
      Assert.AreNotEqual(epoch0, DatasetTests.BytesOf(whole.First().Batch));
    }
  }

  [Test]
  public void GathersRunDepthAheadAndNothingStaysInFlight() {
    using (Context ctx = FerryTests.CpuContext())
    using (Dataset ds = DatasetTests.MakeDataset(ctx, DatasetTests.RandomBytes(16 * Sample, 24))) {
      var loader = new ResidentLoader(ds, 2) { Depth = 3 };
      ulong before = Submitted(ctx);  // the upload's batches
      int seen = 0;
      foreach (ResidentLoader.Item item in loader) {
        using (item) {
          Assert.AreEqual(before + 4, Submitted(ctx));  // the one yielded and three ahead
          if (++seen == 1) break;  // disposes the enumerator: the three ahead are released
        }
      }
      Assert.AreEqual(0UL, Unreleased(ctx));
      int all = 0;
      foreach (ResidentLoader.Item item in loader) {
        using (item) all++;
      }
      Assert.AreEqual(loader.Count, all);
      Assert.AreEqual(0UL, Unreleased(ctx));
    }
  }

  [Test]
  public void BadSettingsAndFailedGathersAreClearErrors() {
    using (Context ctx = FerryTests.CpuContext()) {
      Dataset ds = DatasetTests.MakeDataset(ctx, DatasetTests.RandomBytes(4 * Sample, 25));
      DatasetTests.AssertFerry<InvalidArgumentException>("dataset is null", () => new ResidentLoader(null, 2));
      DatasetTests.AssertFerry<InvalidArgumentException>("batchSize is 0", () => new ResidentLoader(ds, 0));
      var loader = new ResidentLoader(ds, 2);
      DatasetTests.AssertFerry<InvalidArgumentException>("depth is 0", () => loader.Depth = 0);
      DatasetTests.AssertFerry<InvalidArgumentException>("epoch is -1", () => loader.SetEpoch(-1));
      using (var t = new Transform().SetMean(0.5f, 0.5f)) {  // 2 values for 3 channels
        loader.Transform = t;
        var e = Assert.Throws<InvalidArgumentException>(() => loader.First());
        StringAssert.StartsWith("ErrInvalidArgument: batch 0 of epoch 0: mean has 2 values", e.Message);
        Assert.AreEqual(0UL, Unreleased(ctx));
      }
      loader.Transform = null;
      ds.Dispose();
      DatasetTests.AssertFerry<InvalidHandleException>("dataset", () => loader.GetEnumerator());
    }
  }
}

}
